package transcriptgen

// SmallResponse is the aop2 RESPONSE example of aop2 §5 Executor Response, as the
// spec prints it (2.2 KB): the "one small file" of the benchmarks.
var SmallResponse = []byte(`{
  "aop_version": "2.0.2-C",
  "schema_version": "2.0.2",
  "protocol_family": "AOP",
  "message_type": "RESPONSE",
  "session_id": "AOP-SESSION-2026-02-26-001",
  "task_id": "TASK-001",
  "agent": {
    "name": "Emma",
    "provider": "CODEX",
    "model": "gpt-5.3-codex"
  },
  "task_status": {
    "state": "COMPLETED",
    "final_signal": "SUCCESS",
    "message": "Task completed successfully."
  },
  "execution_summary": {
    "summary": "Refactored module_x.py to use dependency injection and added scaffolding tests.",
    "actions": [
      "Read src/module_x.py (312 lines).",
      "Identified 4 uses of global configuration.",
      "Introduced ConfigProvider interface.",
      "Updated module_x.py to accept ConfigProvider.",
      "Created tests/test_module_x.py with initial test cases."
    ],
    "output_artifacts": [
      {
        "type": "FILE",
        "path": "C:/workspace/project-x/src/module_x.py",
        "hash": "sha256:abc123def456...",
        "status": "UPDATED",
        "size_bytes": 8432
      },
      {
        "type": "FILE",
        "path": "C:/workspace/project-x/tests/test_module_x.py",
        "hash": "sha256:789ghi012jkl...",
        "status": "CREATED",
        "size_bytes": 3210
      }
    ],
    "warnings": [],
    "errors": [],
    "extensions": {
      "x_log_ref": "logs/session-001/task-001.log"
    }
  },
  "checkpoint_results": [
    {
      "checkpoint_id": "CP-IMPL-001",
      "status": "PASS",
      "validation_output": "Compilation successful. Exit code 0.",
      "evidence": [
        "python -m py_compile src/module_x.py → exit 0",
        "File size: 8432 bytes (> 0)"
      ],
      "notes": "File present, compiles cleanly, non-empty."
    }
  ],
  "error_details": null,
  "timing": {
    "started_at": "2026-02-26T12:35:01Z",
    "completed_at": "2026-02-26T12:40:32Z",
    "duration_seconds": 331,
    "retries_attempted": 0
  },
  "cost_tracking": {
    "estimated_cost_usd": 0.15,
    "actual_cost_usd": 0.18,
    "tokens_input": 12500,
    "tokens_output": 3200,
    "model_pricing_tier": "standard"
  },
  "progress_log": {
    "last_progress_event_at": "2026-02-26T12:38:30Z",
    "progress_percentage": 60
  },
  "extensions": {
    "x_debug_id": "resp-uuid-1234"
  }
}
`)
