"""Generation with optimum-intel's ``OVModelForCausalLM``, run as a script in the environment that
has optimum-intel (``.venv-optimum``, made by install.sh: optimum-intel needs an older transformers
than this project's). Reads a JSON list of jobs from stdin, each ``{"folder", "text", "beams",
"new_tokens"}``, loads each folder as a user does (``from_pretrained`` of the folder, its tokenizer
with ``AutoTokenizer``), and prints a JSON list of ``{"input_ids", "tokens"}`` (the prompt's ids and
the new tokens) in the jobs' order.

    .venv-optimum/bin/python tests/utils/optimum_generate.py < jobs.json
"""
import functools
import json
import sys

F32 = {"INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32"}


def main() -> None:
    import torch
    from optimum.intel import OVModelForCausalLM
    from transformers import AutoTokenizer

    @functools.cache
    def load(folder):
        return OVModelForCausalLM.from_pretrained(folder, ov_config=F32), AutoTokenizer.from_pretrained(folder)

    results = []
    for job in json.load(sys.stdin):
        model, tokenizer = load(job["folder"])
        ids = tokenizer(job["text"], return_tensors="pt").input_ids
        out = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False, num_beams=job["beams"],
                             max_new_tokens=job["new_tokens"], pad_token_id=3)
        results.append({"input_ids": ids[0].tolist(), "tokens": out[0, ids.shape[1]:].tolist()})
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
