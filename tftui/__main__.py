"""`python -m tftui` is the same as the `tftui` console script."""

import sys

from tftui.cli import main

sys.exit(main())
