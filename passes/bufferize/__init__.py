"""The parts of ``kiln-bufferize`` (passes/kiln_bufferize.py): its analyses, the per-function
rewrite and its rules for control flow, effects, result shapes and deallocation."""
