"""What kiln's GPU passes (``kiln-gpu-outline``, ``kiln-gpu-tile-matmul``,
``convert-linalg-to-parallel-loops``) share: the index-arithmetic builder, reduction combiners
and kernel bodies."""
