"""Report rendering (PDF via typst)."""
