"""Sailor Lab's search and visit as verl tools (BaseTool subclasses), for tool_config.yaml.

Each call goes to `sailor web serve` and returns the observation the lab's own agent reads. When
$SAILOR_EPISODES_FILE is set, each finished episode that called a tool is appended to it as one JSON line
{"request_id", "qa_id", "turns": [{"role", "content", "tool_calls"?}...]}: the chat messages of the episode
with their turn boundaries, which verl's rollout dumps lose. verl gives no end-of-episode signal to tools, so
the line is written when the agent loop lets go of the episode (a weak-reference finaliser on its state;
at the latest when the process exits).
"""

import json
import os
import threading
import weakref

from verl.tools.base_tool import BaseTool
from verl.tools.schemas import ToolResponse

from sailor_web import SailorWeb

_lock = threading.Lock()
_watched = set()


def _plain(message):
    """A chat message as plain JSON (verl's messages may hold pydantic objects)."""
    if hasattr(message, "model_dump"):
        message = message.model_dump(exclude_none=True)
    return json.loads(json.dumps(message, default=str))


def _write_episode(path, request_id, qa_id, messages):
    turns = [m for m in map(_plain, messages) if m.get("role") in ("assistant", "tool")]
    line = json.dumps({"request_id": request_id, "qa_id": qa_id, "turns": turns}, ensure_ascii=False)
    with _lock:
        with open(path, "a", encoding="utf-8") as f:
            f.write(line + "\n")


def watch_episode(agent_data, qa_id):
    """Registers the episode once: its messages are logged when verl drops its state."""
    path = os.environ.get("SAILOR_EPISODES_FILE")
    request_id = getattr(agent_data, "request_id", None)
    messages = getattr(agent_data, "messages", None)
    if not path or request_id is None or messages is None:
        return
    with _lock:
        if request_id in _watched:
            return
        _watched.add(request_id)
    # The finaliser holds the messages list, not agent_data: the loop keeps appending to it until the end.
    weakref.finalize(agent_data, _write_episode, path, request_id, qa_id, messages)


class _SailorTool(BaseTool):
    route = ""

    def __init__(self, config, tool_schema):
        super().__init__(config, tool_schema)
        self.web = SailorWeb(config.get("service_url"), config.get("api_key"), config.get("timeout", 30))
        self._qa = {}

    async def create(self, instance_id=None, **kwargs):
        instance_id, response = await super().create(instance_id, **kwargs)
        self._qa[instance_id] = (kwargs.get("create_kwargs") or {}).get("qa_id")
        return instance_id, response

    def observe(self, parameters):
        raise NotImplementedError

    async def execute(self, instance_id, parameters, **kwargs):
        if kwargs.get("agent_data") is not None:
            watch_episode(kwargs["agent_data"], self._qa.get(instance_id))
        try:
            text = self.observe(parameters)
        except RuntimeError as err:
            return ToolResponse(text="[%s] the service failed: %s" % (self.name, err)), 0.0, {"error": 1.0}
        return ToolResponse(text=text), 0.0, {}

    async def release(self, instance_id, **kwargs):
        self._qa.pop(instance_id, None)


class SailorSearchTool(_SailorTool):
    """search(query: list of strings): the top 10 pages per query, titles, URLs and snippets."""

    def observe(self, parameters):
        return self.web.search(parameters.get("query", []))


class SailorVisitTool(_SailorTool):
    """visit(url: list of URLs, goal: string): evidence and a summary of each page, focused on the goal."""

    def observe(self, parameters):
        return self.web.visit(parameters.get("url", []), parameters.get("goal", ""))
