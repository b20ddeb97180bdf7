"""Modal screens: help, human answer, approval, guard editor, log filter."""
