"""The runner contract's names where the agents package has always offered them.

The definitions live in `tftui.agent_types` (a layer below the engine and the gate
pipeline, so both can use them without importing the runners).
"""

from tftui.agent_types import AgentRequest, AgentResult, AgentRunner, Usage

__all__ = ["AgentRequest", "AgentResult", "AgentRunner", "Usage"]
