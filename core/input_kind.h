// What a person gave us when they paste or drop text, or type it into the config.json box: a share
// link, a vramlens scenario file, a Hugging Face config.json, or something else. Each has its own
// reader (decode_share_link, scenario_from_json, import_hf_config); handing one to another's reader
// only produces that reader's errors ("missing version", "model_type is required"), which do not
// tell the person what went wrong. classify_json_input looks at the text once and says which it is,
// so the caller routes it to the right reader and can say what it did.
//
// Rules (top-level keys of a JSON object):
//   - Scenario: an integer "version" together with "model" or "mode" (what every scenario file
//     written by vramlens has), or, without "version", keys only a scenario has
//     ("mode", "train", "finetune", "infer", "parallel", "gpu", "gpu_count", "overheads").
//   - HfConfig: "model_type" or "architectures", or a config.json's size keys ("hidden_size",
//     "num_hidden_layers", "n_embd", "n_layer", "d_model", "text_config", ...).
//   - ShareLink: not JSON, one word that is "v<digits>.", "#v<digits>." or a URL whose fragment is.
//   - Unknown: anything else, with errors saying what it is not (or what it looks like: a
//     tokenizer.json, a JSON array, text that is not valid JSON).
// The JSON is read with parse_json_input (json_input.h): size first, depth capped, never throws.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"

namespace vl {

enum class InputKind { Empty, ShareLink, Scenario, HfConfig, Unknown };

struct InputClass {
    InputKind kind = InputKind::Unknown;
    std::string link;                // ShareLink: the fragment to decode ("v1.…"), without '#'
    std::vector<FieldError> errors;  // Unknown: why it is none of the others (field "input" or the reader's)
};

InputClass classify_json_input(std::string_view text);

// "share link", "vramlens scenario", "config.json", "empty", "unknown" (for messages and the CLI).
const char* input_kind_name(InputKind k);

}  // namespace vl
