"""``python -m polars_sdc``: the ``polars-sdc`` command."""
from .cli import main

raise SystemExit(main())
