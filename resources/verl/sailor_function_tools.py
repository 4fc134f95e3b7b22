"""Sailor Lab's search and visit as verl >= 0.9 function tools: actor_rollout_ref.rollout.multi_turn.function_tool_path.

The same observations as sailor_tools.py, without the episode log (function tools never see the episode).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sailor_web import SailorWeb  # noqa: E402
from verl.tools.function_tool import function_tool  # noqa: E402

_web = SailorWeb()


@function_tool
def search(query: list[str]) -> str:
    """Performs batched web searches: supply an array of queries; the tool retrieves the top 10 results for each query in one call.

    Args:
        query: Array of query strings. Include multiple complementary search queries in a single call.
    """
    try:
        return _web.search(query)
    except RuntimeError as err:
        return "[search] the service failed: %s" % err


@function_tool
def visit(url: list[str], goal: str) -> str:
    """Visit webpage(s) and return the summary of the content.

    Args:
        url: The URL(s) of the webpage(s) to visit. Can be a single URL or an array of URLs.
        goal: The specific information goal for visiting webpage(s).
    """
    try:
        return _web.visit(url, goal)
    except RuntimeError as err:
        return "[visit] the service failed: %s" % err
