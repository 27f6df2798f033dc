"""kiln's C backend.

Its kernels run parallel loops on OpenMP threads (libgomp, loaded with the first kernel). By
default libgomp's idle threads spin for a while before they sleep; on a machine whose cores are
busy with other work, the spinning threads take cores from the thread doing the work, and an
NPBench kernel with 1,000 small parallel loops ran 8.6 s instead of 0.75 s (2 cores, load 4).
So unless the user chose otherwise, waiting threads sleep at once (``OMP_WAIT_POLICY=PASSIVE``),
set before libgomp starts and reads it (docs/user-guide.md, "Threads").
"""

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
