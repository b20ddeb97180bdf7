"""The runner of a flow that makes no model calls (scripts, approvals, scorer-only gates).

`tftui run` asks for no provider, command or replies file for such a flow; should a call
happen after all, it fails naming its node path rather than guessing an answer.
"""

from __future__ import annotations

from tftui.agent_types import AgentRequest, AgentResult


class NoModelRunner:
    """Answers nothing: every call fails with a message that says how to configure a runner."""

    source = "none (the flow makes no model calls)"
    reports_usage = False
    reports_cost = False
    in_process = True  # answers nothing, asks no one (tftui.agent_types.stays_in_process)

    async def run(self, request: AgentRequest) -> AgentResult:
        message = (
            f"no agent is configured to answer model calls (node path '{request.node_path}'); "
            "use --provider, --agent-cmd or --replies"
        )
        return AgentResult(error=message, stderr=message, exit_code=1)
