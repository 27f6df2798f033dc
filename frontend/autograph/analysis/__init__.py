"""Static analyses the converters read: which names a statement binds and reads, and which are live."""
