"""Sign a baton decision from Python, as any client can (docs/signatures.md).

The signature is a JWS compact serialization: base64url(header) "." base64url(payload) "."
base64url(Ed25519 signature of the first two parts, as ASCII). Header and payload are canonical
JSON: keys sorted, no whitespace, UTF-8. Send the result as the decision's "signature" (the
decideHandoff update, the approveHandoff/rejectHandoff signals, or the HTTP service's "signature").

    echo '{"key": "alice.pem", "kid": "alice-2026", "workflowId": "…", "approval": "…",
           "subject": {"kind": "handoff", "from": "triage", "to": "refunds"},
           "outcome": "approve", "approver": "alice", "note": "ok"}' | python3 sign_decision.py

Needs the `cryptography` package (pip install cryptography).
"""
import base64
import hashlib
import json
import sys
import time

from cryptography.hazmat.primitives.serialization import load_pem_private_key


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def canonical(value) -> str:
    """Canonical JSON: sorted keys, no whitespace, non-ASCII characters as themselves."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def tool_subject(agent: str, tool: str, call_hash: str, edited_arguments=None) -> dict:
    """The subject of a tool call's decision; with edited arguments, the digest of their canonical JSON."""
    subject = {"kind": "tool_call", "from": agent, "tool": tool, "callHash": call_hash}
    if edited_arguments is not None:
        subject["arguments"] = sha256_hex(canonical(edited_arguments))
    return subject


def sign_decision(private_key, kid, workflow_id, approval, subject, outcome, approver, note=None, iat=None) -> str:
    """The decision's signature. `note` is the comment of an approval or the reason of a rejection."""
    payload = {
        "v": "baton.decision/1",
        "workflowId": workflow_id,
        "approval": approval,
        "subject": subject,
        "outcome": outcome,
        "approver": approver,
        "iat": int(time.time()) if iat is None else iat,
    }
    if note is not None:
        payload["note"] = sha256_hex(note)
    header = {"alg": "EdDSA", "kid": kid}
    signing_input = b64url(canonical(header).encode("utf-8")) + "." + b64url(canonical(payload).encode("utf-8"))
    return signing_input + "." + b64url(private_key.sign(signing_input.encode("ascii")))


if __name__ == "__main__":
    request = json.load(sys.stdin)
    with open(request["key"], "rb") as f:
        key = load_pem_private_key(f.read(), password=None)
    print(sign_decision(key, request["kid"], request["workflowId"], request["approval"], request["subject"],
                        request["outcome"], request["approver"], request.get("note")))
