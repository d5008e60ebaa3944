"""The depot-records agent, in Python with the standard library only. It knows nothing of agentrl: it reads the
question from stdin (one JSON line), talks to the OpenAI-compatible server at OPENAI_BASE_URL with OPENAI_API_KEY,
runs its `read_text_file` tool itself on the records folder named by RECORDS_DIR, and prints the model's answer."""
import json
import os
import sys
import urllib.request

SYSTEM_PROMPT = "Read the record, then answer."
TOOLS = [{
    "type": "function",
    "function": {
        "name": "read_text_file",
        "description": "Read a record.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
}]


def chat(messages, max_tokens):
    body = {"model": os.environ.get("AGENTRL_MODEL", "policy"), "messages": messages, "tools": TOOLS, "max_tokens": max_tokens}
    req = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "content-type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.loads(r.read())["choices"][0]["message"]


def read_text_file(path):
    root = os.path.realpath(os.environ["RECORDS_DIR"])
    full = os.path.realpath(os.path.join(root, str(path)))
    if not full.startswith(root + os.sep) or not os.path.isfile(full):
        return "Error: no such record: " + str(path)
    with open(full) as f:
        return f.read()


def main():
    if sys.argv[1:] == ["--describe"]:  # what the trainer renders its cold-start demonstrations with
        print(json.dumps({"system_prompt": SYSTEM_PROMPT, "tools": TOOLS}))
        return
    example = json.loads(sys.stdin.readline())
    max_tokens = int(os.environ.get("MAX_TURN_TOKENS", "48"))
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": example["question"]}]
    for _ in range(2):
        reply = chat(messages, max_tokens)
        calls = reply.get("tool_calls") or []
        if not calls:
            print(reply.get("content") or "")
            return
        messages.append({"role": "assistant", "content": reply.get("content"), "tool_calls": calls})
        for c in calls:
            try:
                args = json.loads(c["function"]["arguments"])
                out = read_text_file(args.get("path", "")) if c["function"]["name"] == "read_text_file" else "Error: unknown tool"
            except (ValueError, AttributeError) as e:
                out = "Error: " + str(e)
            messages.append({"role": "tool", "tool_call_id": c["id"], "name": c["function"]["name"], "content": out})
    print("")


if __name__ == "__main__":
    main()
