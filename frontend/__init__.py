"""kiln's frontend: tracing Python functions over NumPy arrays into ``graph`` IR.

Importing it imports the modules that implement ``Tensor``'s indexing and NumPy
protocols, which fill the table ``Tensor`` calls them through
(:data:`kiln.frontend.tensor._PROTOCOLS`): ``tensor`` cannot import them, as they
build on it.
"""

from kiln.frontend import indexing, numpy_dispatch, numpy_iteration  # noqa: F401  (they fill Tensor's protocol table)
from kiln.frontend import random_numbers  # noqa: F401  (np.random's staged versions; np.random.seed seeds kiln's stream)
