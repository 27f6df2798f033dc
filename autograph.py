"""``kiln.autograph``: see what AutoGraph makes of a function (``kiln.autograph.to_code(f)``)."""

from kiln.frontend.autograph import conversion_info, to_code

__all__ = ["conversion_info", "to_code"]
