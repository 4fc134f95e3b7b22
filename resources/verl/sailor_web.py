"""A client for `sailor web serve` (Sailor Lab's simulated web), shared by the verl tool files.

The service answers the lab's own tools: POST /search {"query": [...]} and POST /visit {"url": [...],
"goal": "..."} return {"result": <the observation text the lab's agent reads>}. Retries on 5xx, 429 and
connection errors, like verl's old search tool. Needs `requests`.
"""

import os
import time

import requests

# Written by `sailor export verl` (--web-url), as is tool_config.yaml's service_url; $SAILOR_WEB_URL overrides both.
# $SAILOR_WEB_KEY is the bearer key for a service off loopback.
DEFAULT_URL = "http://127.0.0.1:8000"
RETRIES = 5


class SailorWeb:
    def __init__(self, url=None, api_key=None, timeout=30):
        # The environment wins, so run.sh's SAILOR_WEB_URL reaches the tools whatever the tool config says.
        self.url = (os.environ.get("SAILOR_WEB_URL") or url or DEFAULT_URL).rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("SAILOR_WEB_KEY", "")
        self.timeout = timeout
        self.session = requests.Session()

    def call(self, route, payload):
        """The `result` of POST {url}{route}; raises RuntimeError naming the route when the service refuses."""
        headers = {"Authorization": "Bearer " + self.api_key} if self.api_key else {}
        last = None
        for attempt in range(RETRIES):
            try:
                res = self.session.post(self.url + route, json=payload, headers=headers, timeout=self.timeout)
            except (requests.ConnectionError, requests.Timeout) as err:
                last = err
            else:
                if res.status_code < 400:
                    return res.json()["result"]
                if res.status_code not in (429, 500, 502, 503, 504):
                    raise RuntimeError("sailor web %s: HTTP %d %s" % (route, res.status_code, res.text[:300]))
                last = RuntimeError("HTTP %d" % res.status_code)
            time.sleep(min(8, 0.5 * 2**attempt))
        raise RuntimeError("sailor web %s failed after %d attempts: %s" % (route, RETRIES, last))

    def search(self, query):
        return self.call("/search", {"query": query})

    def visit(self, url, goal):
        return self.call("/visit", {"url": url, "goal": goal})
