"""kiln's C backend.

Its kernels run parallel loops on OpenMP threads (libgomp, loaded with the first kernel). By
default libgomp's idle threads spin for 300,000 rounds before they sleep; on a machine whose
cores are busy with other work, the spinning threads take cores from the thread doing the work
(an NPBench kernel with 1,000 small parallel loops ran 8.6 s instead of 0.75 s, 2 cores, load
4). Sleeping at once (``OMP_WAIT_POLICY=PASSIVE``) costs a wake-up per parallel loop instead:
floyd_warshall's 800 loops of 160,000 elements ran 3.5x slower on two idle cores than on one.
So unless the user chose a policy, waiting threads spin briefly, then sleep
(``GOMP_SPINCOUNT=10000``, tens of microseconds: long enough for the next loop of a sequence,
short enough that a busy core is soon given back), set before libgomp starts and reads it; the
thread count itself follows the free cores (``kiln_num_threads``). docs/user-guide.md, "Threads".
"""

import os

if "OMP_WAIT_POLICY" not in os.environ:
    os.environ.setdefault("GOMP_SPINCOUNT", "10000")
