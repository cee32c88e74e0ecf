// Importing a model from the Hugging Face Hub by repo id or URL (issue 17). The app never requests
// anything itself: the Import button queues a "hub" OutEvent (a: {"repo", "revision", "file",
// "endpoint"} as JSON, b: the token, "" when none), shell/hub.js fetches the checkpoint's small files
// and headers and answers with vl_hub_done(payload) or vl_hub_failed(...), which call the two
// functions below. The bytes are read by the core (import_checkpoint); the token stays in memory.
#pragma once
#include <map>
#include <string>
#include <string_view>

#include "ui/app.h"

namespace vl::ui {

// Parses the field; on success queues the request and says what is read, else says why not.
bool request_hub_import(AppState& app);

// The page's answer. payload: {"repo", "revision" (the commit read), "file",
//   "config" (config.json text; the base model's for an adapter), "adapter" (adapter_config.json text),
//   "index" (model.safetensors.index.json text), "shards": [{"name", "size"}], "missing_shards": [names],
//   "gguf": {"name", "size"}, "api_parameters": {"BF16": n, ...} (the model API's safetensors field)}.
// heads: each shard's and the GGUF's first bytes (the whole header), by file name, passed as bytes
// (a GGUF header with its vocabulary can be tens of MB: not in the JSON).
// On success the scenario's model, weight format and LoRA settings are the checkpoint's and
// model.source names the repo and commit; on failure the message names what is wrong.
bool hub_import_done(AppState& app, std::string_view payload, const std::map<std::string, std::string>& heads);

// A request that failed: the HTTP status (0: no answer), the X-Error-Code and Retry-After headers,
// the file asked for ("" for the model API) and the browser's reason (a network or CORS failure).
void hub_import_failed(AppState& app, int status, std::string_view x_error_code, std::string_view retry_after,
                       std::string_view file, std::string_view detail);

}  // namespace vl::ui
