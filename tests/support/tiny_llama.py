# Builds, offline, a tiny random-weight Llama (2 layers, 32 wide) with its own byte-level BPE tokenizer and a
# ChatML chat template, and saves it into a Hugging Face hub cache as the repo <repo>, so that `transformers
# serve` lists it under /v1/models and loads it by that name with HF_HUB_OFFLINE=1.
# Usage: python tiny_llama.py <hub-cache-dir> <repo>=<seed> ... (e.g. sailor-test/tiny-llama-a=1), one process for
# all, as importing torch is most of the time.
import hashlib
import os
import sys

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
# The words a ReAct episode is made of, so the tokenizer's merges look like a real one's on this text.
CORPUS = [
    "<think> I should search for the answer first. </think>",
    '<tool_call> {"name": "search", "arguments": {"query": "capital of France"}} </tool_call>',
    "<tool_response> Paris is the capital and largest city of France. </tool_response>",
    "<answer> Paris </answer>",
    "You are a web agent. Answer the question with the tools search and visit.",
    "Who was born in 1901? Which river flows through the city? When was it founded?",
] * 20

CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def cache_folder(hub: str, repo: str) -> str:
    """The snapshot folder of `repo` in the hub cache, with refs/main naming it (the layout huggingface_hub reads)."""
    base = os.path.join(hub, "models--" + repo.replace("/", "--"))
    commit = hashlib.sha1(repo.encode()).hexdigest()
    os.makedirs(os.path.join(base, "refs"), exist_ok=True)
    with open(os.path.join(base, "refs", "main"), "w") as f:
        f.write(commit)
    return os.path.join(base, "snapshots", commit)


def build(out: str, seed: int) -> None:
    torch.manual_seed(seed)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(CORPUS, trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIALS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<|im_start|>", eos_token="<|im_end|>", pad_token="<|endoftext|>")
    fast.chat_template = CHATML
    config = LlamaConfig(
        vocab_size=tok.get_vocab_size(), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
        bos_token_id=fast.bos_token_id, eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id,
    )
    model = LlamaForCausalLM(config)
    model.generation_config.eos_token_id = fast.eos_token_id
    model.generation_config.pad_token_id = fast.pad_token_id
    model.save_pretrained(out)
    fast.save_pretrained(out)


if __name__ == "__main__":
    for spec in sys.argv[2:]:
        repo, seed = spec.rsplit("=", 1)
        build(cache_folder(sys.argv[1], repo), int(seed))
