// RUN: kiln-opt %s --load %inputs/user_ext.py -p 'my-tag{label="yes"}' | filecheck %s

// A user's dialect parses and a user's pass runs, with options.
// CHECK: my.hello {tagged = "yes"}
my.hello
