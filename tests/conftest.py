"""Settings for the whole test session."""

import os

# A compile that takes longer than 2 s (a busy machine) reports its progress on stderr; tests
# that check a child's stderr is empty would then fail by chance. tests/test_progress.py
# turns it back on for its own tests.
os.environ["KILN_PROGRESS"] = "0"

# A large source's first call runs a quick (-Og) build while the optimized one is made in the
# background (backends/c/tiering.py): off, so that every test runs the build a user keeps and
# starts no background compiles; tests/test_tiering.py turns it on for its own tests.
os.environ["KILN_TIERING"] = "0"
