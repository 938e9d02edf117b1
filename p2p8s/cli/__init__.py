"""The terminal: click commands and the line-mode views."""
