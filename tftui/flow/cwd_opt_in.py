"""The two ways the person running a flow opts in to `cwd: "{args.X}"` (docs/differences.md §5.2).

No imports: the command-line parsers read the flag on every start.
"""

CWD_BRIDGE_FLAG = "--allow-cwd-bridge"
CWD_BRIDGE_SETTING = "run.allow_cwd_bridge"  # user config, a TFTUI_ variable or --set; never a project file
CWD_BRIDGE_ENV = "TFTUI_RUN__ALLOW_CWD_BRIDGE"
