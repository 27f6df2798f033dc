"""Stands in for a bug in kiln itself, for kiln-opt's internal error report: after this module
is loaded, kiln-group-exp fails (an AttributeError in kiln's own code, no frame of the user's)
on the first pair of adjacent vector ``math.exp`` ops it groups."""

import kiln.passes.kiln_group_exp as group_exp

group_exp.kvec = None
