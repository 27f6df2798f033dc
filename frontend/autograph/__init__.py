"""AutoGraph: Python control flow on tensors becomes staged control flow.

A function's source is rewritten, construct by construct (``converters/``),
into Python that calls runtime operators (``operators/``, seen as ``ag__`` in
generated code). Each operator runs plain Python when its condition is a
Python value and calls a staging hook (``staging``) when it is a tensor.
"""

from kiln.frontend.autograph.context import ConversionInfo, Unsupported
from kiln.frontend.autograph.to_code import to_code
from kiln.frontend.autograph.transpiler import conversion_info, convert

__all__ = ["ConversionInfo", "Unsupported", "conversion_info", "convert", "to_code"]
