"""Agent runners: who answers a phase's model calls (replies file, HTTP provider, CLI, a person)."""

from tftui.agent_types import AgentRequest, AgentResult, AgentRunner, Usage

__all__ = ["AgentRequest", "AgentResult", "AgentRunner", "Usage"]
