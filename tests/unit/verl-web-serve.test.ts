// `sailor web serve` against clients written from verl's protocol (not verl's code): the request verl <= 0.7.1's
// SearchTool sends (verl/tools/utils/search_r1_like_utils.py at bec9ef7, call_search_api: POST the URL with
// {"queries", "topk", "return_scores": true}) and the text it builds from the answer (_passages2string:
// "Doc {i} (Title: {first line})\n{rest}", one block per query joined by "\n---\n"); ASearcher's shapes; bad requests;
// the key on a non-loopback address; and the exported tool classes run under Python with verl's BaseTool stubbed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readGraphFile } from '../../main/lab/kg/io';
import { SimWeb } from '../../main/lab/agent/web';
import { cliData, sailor } from '../support/cli-helpers';
import { runPython, serveWeb, type ServedWeb } from '../support/verl-python';

let dir = '';
let served: ServedWeb;
let web: SimWeb;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'verl-serve-'));
  cliData(dir, process.env, { maxEdges: 400, train: 6, held: 2 });
  web = new SimWeb(readGraphFile(join(dir, 'g.json')));
  served = await serveWeb(join(dir, 'g.json'));
}, 120_000);

afterAll(async () => {
  await served?.stop();
});

/** Titles that name one page each, for navigational queries. */
function uniqueTitles(n: number): string[] {
  const count = new Map<string, number>();
  for (const p of web.pages) count.set(p.title.toLowerCase(), (count.get(p.title.toLowerCase()) ?? 0) + 1);
  return web.pages.filter((p) => count.get(p.title.toLowerCase()) === 1 && p.title.split(' ').length >= 2).slice(0, n).map((p) => p.title);
}

const OLD_SEARCH_TOOL_CLIENT = `
import json, sys, requests
inp = json.load(sys.stdin)
# What verl's old SearchTool sends: POST to retrieval_service_url, these headers, this body.
payload = {"queries": inp["queries"], "topk": 3, "return_scores": True}
headers = {"Content-Type": "application/json", "Accept": "application/json"}
res = requests.post(inp["url"], headers=headers, json=payload, timeout=30)
res.raise_for_status()
body = res.json()
blocks = []
for retrieval in body["result"]:
    ref = ""
    for i, item in enumerate(retrieval):
        lines = item["document"]["contents"].split("\\n")
        ref += "Doc %d (Title: %s)\\n%s\\n\\n" % (i + 1, lines[0], "\\n".join(lines[1:]))
    blocks.append(ref.strip())
print(json.dumps({"body": body, "text": "\\n---\\n".join(blocks)}))
`;

describe('sailor web serve', () => {
  it("answers verl's old SearchTool request with the navigational page first and the Doc text verl builds", async () => {
    const titles = uniqueTitles(4);
    expect(titles.length).toBe(4);
    const r = (await runPython(OLD_SEARCH_TOOL_CLIENT, { url: `${served.origin}/retrieve`, queries: titles })) as {
      body: { result: Array<Array<{ document: { contents: string }; score: number }>> };
      text: string;
    };
    expect(r.body.result).toHaveLength(titles.length);
    titles.forEach((t, i) => {
      const hits = r.body.result[i]!;
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.length).toBeLessThanOrEqual(3);
      expect(hits[0]!.document.contents.split('\n')[0]).toBe(t);
      for (let k = 1; k < hits.length; k++) expect(hits[k - 1]!.score).toBeGreaterThanOrEqual(hits[k]!.score);
    });
    const blocks = r.text.split('\n---\n');
    expect(blocks).toHaveLength(titles.length);
    const page = web.pages.find((p) => p.title === titles[0])!;
    expect(blocks[0]!.startsWith(`Doc 1 (Title: ${titles[0]})\n${page.sentences.join(' ')}\n\nDoc 2 (Title: `)).toBe(true);
  });

  it("speaks ASearcher's shapes: /retrieve without scores and /access", async () => {
    const [title] = uniqueTitles(1);
    const page = web.pages.find((p) => p.title === title)!;
    const r = (await runPython(
      `
import json, sys, requests
inp = json.load(sys.stdin)
a = requests.post(inp["url"] + "/retrieve", json={"queries": [inp["title"]], "topk": 5, "return_scores": False}).json()
b = requests.post(inp["url"] + "/access", json={"urls": [inp["page"], "sim://no-such-page"]}).json()
print(json.dumps({"a": a, "b": b}))`,
      { url: served.origin, title, page: page.url },
    )) as { a: { result: Array<Array<Record<string, string>>> }; b: { result: Array<{ contents: string } | null> } };
    expect(Object.keys(r.a.result[0]![0]!).sort()).toEqual(['contents', 'url']);
    expect(r.a.result[0]![0]).toEqual({ contents: `${page.title}\n${page.sentences.join(' ')}`, url: page.url });
    expect(r.b.result).toEqual([{ contents: `${page.title}\n${page.sentences.join(' ')}` }, null]);
  });

  it('answers malformed requests with 4xx JSON naming the field, refuses rebound Hosts and browsers, and keeps serving', async () => {
    const r = (await runPython(
      `
import json, sys, requests
u = json.load(sys.stdin)["url"]
out = {}
def call(name, method, path, **kw):
    res = requests.request(method, u + path, **kw)
    try:
        body = res.json()
    except ValueError:
        body = None
    out[name] = [res.status_code, body]
call("not_json", "POST", "/retrieve", data="{queries")
call("no_queries", "POST", "/retrieve", json={"topk": 3})
call("query_number", "POST", "/retrieve", json={"queries": ["a", 5]})
call("topk_zero", "POST", "/retrieve", json={"queries": ["a"], "topk": 0})
call("scores_text", "POST", "/retrieve", json={"queries": ["a"], "return_scores": "yes"})
call("array_body", "POST", "/access", json=["sim://x"])
call("visit_goal", "POST", "/visit", json={"url": ["sim://x"]})
call("get", "GET", "/retrieve")
call("unknown", "POST", "/nowhere", json={})
call("huge", "POST", "/retrieve", data="x" * (2 << 20))
call("rebound", "POST", "/retrieve", json={"queries": ["a"]}, headers={"Host": "evil.example:80"})
call("browser", "POST", "/retrieve", json={"queries": ["a"]}, headers={"Origin": "http://evil.example"})
call("after", "POST", "/retrieve", json={"queries": ["river"], "topk": 1, "return_scores": True})
print(json.dumps(out))`,
      { url: served.origin },
    )) as Record<string, [number, { error?: { message: string }; result?: unknown } | null]>;
    const msg = (k: string): string => r[k]![1]?.error?.message ?? '';
    expect(r.not_json![0]).toBe(400);
    expect(msg('not_json')).toContain('not valid JSON');
    expect([r.no_queries![0], msg('no_queries')]).toEqual([400, expect.stringContaining('queries')]);
    expect([r.query_number![0], msg('query_number')]).toEqual([400, expect.stringContaining('queries[1]')]);
    expect([r.topk_zero![0], msg('topk_zero')]).toEqual([400, expect.stringContaining('topk')]);
    expect([r.scores_text![0], msg('scores_text')]).toEqual([400, expect.stringContaining('return_scores')]);
    expect([r.array_body![0], msg('array_body')]).toEqual([400, expect.stringContaining('JSON object')]);
    expect([r.visit_goal![0], msg('visit_goal')]).toEqual([400, expect.stringContaining('goal')]);
    expect(r.get![0]).toBe(405);
    expect(r.unknown![0]).toBe(404);
    expect(r.huge![0]).toBe(413);
    expect([r.rebound![0], r.browser![0]]).toEqual([403, 403]);
    expect(r.after![0]).toBe(200);
  });

  it('refuses a port in use or an address this machine does not have, with exit 2 and the reason', () => {
    const port = new URL(served.origin).port;
    const busy = sailor(['web', 'serve', '--graph', join(dir, 'g.json'), '--port', port], process.env, 60_000);
    expect([busy.status, busy.stderr]).toEqual([2, expect.stringContaining(`port ${port} on 127.0.0.1 is in use`)]);
    const away = sailor(['web', 'serve', '--graph', join(dir, 'g.json'), '--port', '0', '--host', '203.0.113.9'], process.env, 60_000);
    expect([away.status, away.stderr]).toEqual([2, expect.stringContaining('not an address of this machine')]);
  });

  it('needs the printed key on a non-loopback address', async () => {
    const open = await serveWeb(join(dir, 'g.json'), ['--host', '0.0.0.0'], { ...process.env, SAILOR_WEB_KEY: '' });
    try {
      const key = /API key: (\S+)/.exec(open.stdout)![1]!;
      expect(key.length).toBeGreaterThanOrEqual(24);
      const port = new URL(open.origin).port;
      const r = (await runPython(
        `
import json, sys, requests
inp = json.load(sys.stdin)
u = "http://127.0.0.1:%s/retrieve" % inp["port"]
body = {"queries": ["river"], "topk": 1, "return_scores": True}
print(json.dumps([requests.post(u, json=body).status_code,
                  requests.post(u, json=body, headers={"Authorization": "Bearer wrong"}).status_code,
                  requests.post(u, json=body, headers={"Authorization": "Bearer " + inp["key"]}).status_code]))`,
        { port, key },
      )) as number[];
      expect(r).toEqual([401, 401, 200]);
    } finally {
      await open.stop();
    }
  });
});

/** Just enough of verl's interface for the exported tools to import and run (verl 0.9's names and signatures). */
function writeVerlStub(root: string): void {
  mkdirSync(join(root, 'verl', 'tools'), { recursive: true });
  writeFileSync(join(root, 'verl', '__init__.py'), '');
  writeFileSync(join(root, 'verl', 'tools', '__init__.py'), '');
  writeFileSync(
    join(root, 'verl', 'tools', 'schemas.py'),
    `class ToolResponse:
    def __init__(self, text=None, image=None, video=None):
        self.text, self.image, self.video = text, image, video
`,
  );
  writeFileSync(
    join(root, 'verl', 'tools', 'base_tool.py'),
    `from uuid import uuid4
from .schemas import ToolResponse
class BaseTool:
    def __init__(self, config, tool_schema):
        self.config = config
        self.tool_schema = tool_schema
        self.name = tool_schema["function"]["name"]
    async def create(self, instance_id=None, **kwargs):
        return (instance_id or str(uuid4())), ToolResponse()
    async def execute(self, instance_id, parameters, **kwargs):
        return ToolResponse(text="stub"), 0.0, {}
    async def calc_reward(self, instance_id, **kwargs):
        return 0.0
    async def release(self, instance_id, **kwargs):
        pass
`,
  );
  writeFileSync(
    join(root, 'verl', 'tools', 'function_tool.py'),
    `REGISTRY = {}
def function_tool(fn):
    REGISTRY[fn.__name__] = fn
    return fn
`,
  );
}

describe('the exported tools under Python', () => {
  it('run as BaseTool classes and function tools against the service, give the lab observations and log each episode', async () => {
    const out = join(dir, 'verl');
    const r0 = sailor(['export', 'verl', '--dataset', join(dir, 'train.jsonl'), '--out', out, '--web-url', served.origin], process.env);
    expect(r0.status, r0.stderr).toBe(0);
    writeVerlStub(join(dir, 'stub'));
    const [title] = uniqueTitles(1);
    const page = web.pages.find((p) => p.title === title)!;
    const episodes = join(dir, 'episodes.jsonl');
    const r = (await runPython(
      `
import asyncio, gc, json, sys, yaml, importlib.util
inp = json.load(sys.stdin)
cfg = yaml.safe_load(open(inp["out"] + "/tool_config.yaml"))["tools"]
def load(class_name):
    module, name = class_name.rsplit(".", 1)
    return getattr(__import__(module), name)
search = load(cfg[0]["class_name"])(cfg[0]["config"], cfg[0]["tool_schema"])
visit = load(cfg[1]["class_name"])(cfg[1]["config"], cfg[1]["tool_schema"])

class AgentData:  # the loop's per-episode state: the tools read request_id and messages
    def __init__(self):
        self.request_id = "req-1"
        self.messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}]

async def episode():
    agent = AgentData()
    texts = []
    for tool, args in ((search, {"query": [inp["title"]]}), (visit, {"url": [inp["url"]], "goal": "its founders"})):
        agent.messages.append({"role": "assistant", "content": "<think>x</think>", "tool_calls": [{"type": "function", "function": {"name": tool.name, "arguments": json.dumps(args)}}]})
        iid, _ = await tool.create(create_kwargs={"qa_id": "qa-7"})
        resp, reward, metrics = await tool.execute(iid, args, agent_data=agent)
        await tool.release(iid)
        texts.append(resp.text)
        agent.messages.append({"role": "tool", "content": resp.text})
    agent.messages.append({"role": "assistant", "content": "<think>done</think>\\n<answer>x</answer>"})
    return texts

texts = asyncio.run(episode())
gc.collect()
spec = importlib.util.spec_from_file_location("sailor_function_tools", inp["out"] + "/sailor_function_tools.py")
ft = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ft)
import verl.tools.function_tool as registry
import os, sailor_web
os.environ["SAILOR_WEB_URL"] = "http://env-host:1"
env_wins = sailor_web.SailorWeb("http://config-host:2").url
print(json.dumps({"env_wins": env_wins, "texts": texts, "fn": [ft.search([inp["title"]]), ft.visit([inp["url"]], "its founders")],
                  "registered": sorted(registry.REGISTRY), "episodes": [json.loads(l) for l in open(inp["episodes"])]}))`,
      { out, title, url: page.url, episodes },
      { env: { PYTHONPATH: `${join(dir, 'stub')}:${out}`, SAILOR_EPISODES_FILE: episodes, SAILOR_WEB_URL: '' } },
    )) as { env_wins: string; texts: string[]; fn: string[]; registered: string[]; episodes: Array<{ request_id: string; qa_id: string; turns: Array<{ role: string }> }> };
    const lab = [web.search([title!]), web.visit([page.url], 'its founders')];
    expect(r.texts).toEqual(lab);
    expect(r.fn).toEqual(lab);
    expect(r.texts[0]).toContain(`[${title}](${page.url})`);
    expect(r.registered).toEqual(['search', 'visit']);
    expect(r.env_wins).toBe('http://env-host:1'); // run.sh's SAILOR_WEB_URL beats the tool config's service_url
    expect(r.episodes).toHaveLength(1);
    expect(r.episodes[0]!.request_id).toBe('req-1');
    expect(r.episodes[0]!.qa_id).toBe('qa-7');
    expect(r.episodes[0]!.turns.map((t) => t.role)).toEqual(['assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(readFileSync(join(out, 'sailor_web.py'), 'utf8')).toContain(`DEFAULT_URL = "${served.origin}"`);
  });
});
