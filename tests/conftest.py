"""Settings for the whole test session."""

import os

# A compile that takes longer than 2 s (a busy machine) reports its progress on stderr; tests
# that check a child's stderr is empty would then fail by chance. tests/test_progress.py
# turns it back on for its own tests.
os.environ["KILN_PROGRESS"] = "0"
