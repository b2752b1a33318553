"""cleanup."""
