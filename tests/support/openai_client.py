# The real `openai` Python client against a server given on the command line: lists the models, asks one chat
# completion with per-token log-probabilities, and asks for a model the server does not serve. Prints one JSON
# object with what came back, for tests/unit/policy-service.test.ts.
# Usage: python openai_client.py <base-url> <model>
import json
import sys

import openai

base_url, model = sys.argv[1], sys.argv[2]
client = openai.OpenAI(base_url=base_url, api_key="unused-on-loopback", max_retries=0, timeout=300)
models = [m.id for m in client.models.list().data]
reply = client.chat.completions.create(
    model=model,
    messages=[{"role": "user", "content": "Which company was founded by Igor Khandros?"}],
    max_tokens=24,
    temperature=0,
    logprobs=True,
)
choice = reply.choices[0]
try:
    client.chat.completions.create(model="no-such-model", messages=[{"role": "user", "content": "hi"}])
    missing = None
except openai.NotFoundError as err:
    missing = {"status": err.status_code, "message": err.message}
print(json.dumps({
    "models": models,
    "content": choice.message.content,
    "finish_reason": choice.finish_reason,
    "tokens": [t.token for t in choice.logprobs.content],
    "bytes": [b for t in choice.logprobs.content for b in t.bytes],
    "logprobs": [t.logprob for t in choice.logprobs.content],
    "usage": {"prompt": reply.usage.prompt_tokens, "completion": reply.usage.completion_tokens},
    "missing": missing,
}))
