# RUN: %python %s | filecheck %s
# kiln.print: Python values fold into the format (braces doubled), tensors are {} holes.
import numpy as np

import kiln


@kiln.function
def fizzbuzz(max_num):
    counter = 0
    for num in kiln.range(1, max_num + 1):
        if num % 3 == 0 and num % 5 == 0:
            kiln.print("FizzBuzz")
        elif num % 3 == 0:
            kiln.print("Fizz")
        elif num % 5 == 0:
            kiln.print("Buzz")
        else:
            kiln.print(num)
        counter += 1
    return counter


print(fizzbuzz.get_concrete_function(np.int64(15)).ir)
# CHECK-LABEL: func.func public @fizzbuzz
# CHECK:         graph.while
# CHECK:           graph.cond %{{[0-9]+}} {
# CHECK-NEXT:        graph.print "FizzBuzz\0A"
# CHECK:               graph.print "Fizz\0A"
# CHECK:                 graph.print "Buzz\0A"
# CHECK:                 graph.print "{}\0A"(%{{.*}} : tensor<i64>)


@kiln.function
def show(x):
    kiln.print("x =", x, {"k": 1}, sep=", ", end="!\n")
    return x


print(show.get_concrete_function(np.ones(2)).ir)
# CHECK-LABEL: func.func public @show
# CHECK:         graph.print "x =, {}, {{[{][{]}}'k': 1{{[}][}]}}!\0A"(%x : tensor<2xf64>)
