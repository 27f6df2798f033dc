"""kiln."""
