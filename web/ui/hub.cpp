#include "ui/hub.h"

#include <nlohmann/json.hpp>

#include "enum_names.h"
#include "inference/weight_formats.h"
#include "json_input.h"
#include "model/checkpoint_import.h"
#include "model/hub_reference.h"
#include "units.h"

namespace vl::ui {

namespace {

using Json = nlohmann::json;

void fail(AppState& app, Notice why) {
    app.ui.hub_state = HubState::Failed;
    app.ui.hub_message = std::move(why);
}

// The errors after what the notice says so far, joined by "; ".
Notice& with_errors(Notice& n, const std::vector<FieldError>& errs) {
    for (const FieldError& e : errs) n.add(n.empty() ? "" : &e == &errs.front() ? " " : "; ", e.field, e.message);
    return n;
}
Notice errors_notice(const std::vector<FieldError>& errs) {
    Notice n;
    return with_errors(n, errs);
}

std::string count_text(uint64_t n) { return n <= INT64_MAX ? group_thousands(static_cast<int64_t>(n)) : std::to_string(n); }

// A string member, or nullopt when absent; an error naming it when it is there but not a string.
std::optional<std::string> text_of(const Json& j, const char* key, std::vector<FieldError>& errs) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return std::nullopt;
    if (!it->is_string()) {
        errs.push_back({std::string("hub.") + key, "must be text"});
        return std::nullopt;
    }
    return it->get<std::string>();
}

// {"name", "size"} with the file's first bytes in heads.
bool file_of(const Json& f, const std::map<std::string, std::string>& heads, const std::string& at, std::string& name,
             uint64_t& size, const std::string*& head, std::vector<FieldError>& errs) {
    if (!f.is_object() || !f.contains("name") || !f["name"].is_string() || !f.contains("size") || !f["size"].is_number_unsigned()) {
        errs.push_back({at, "must be {\"name\": text, \"size\": bytes}"});
        return false;
    }
    name = f["name"].get<std::string>();
    size = f["size"].get<uint64_t>();
    const auto h = heads.find(name);
    if (h == heads.end()) {
        errs.push_back({at, name + ": its header was not read"});
        return false;
    }
    head = &h->second;
    return true;
}

void checkpoint_facts(AppState& app, const CheckpointImport& c, const Json& payload) {
    std::vector<std::string>& facts = app.ui.hub_facts;
    std::string by_dtype;
    uint64_t total = 0;
    if (c.safetensors && !c.safetensors->dtypes.empty()) {
        for (const DtypeCount& d : c.safetensors->dtypes) {
            by_dtype += (by_dtype.empty() ? "" : ", ") + d.dtype + " " + count_text(d.elements);
            total += d.elements;
        }
    } else if (const auto api = payload.find("api_parameters"); api != payload.end() && api->is_object()) {
        for (auto it = api->begin(); it != api->end(); ++it)
            if (it->is_number_unsigned()) {
                by_dtype += (by_dtype.empty() ? "" : ", ") + it.key() + " " + count_text(it->get<uint64_t>());
                total += it->get<uint64_t>();
            }
    } else if (c.gguf) {
        for (const GgmlTypeCount& t : c.gguf->types) {
            by_dtype += (by_dtype.empty() ? "" : ", ") + std::string(ggml_type(t.type).name) + " " + count_text(t.elements);
            total += t.elements;
        }
    }
    if (total > 0) facts.push_back("Checkpoint parameters: " + count_text(total) + " (" + by_dtype + ")");
    if (c.safetensors && c.safetensors->quantized) {
        const QuantizedSplit& q = *c.safetensors->quantized;
        facts.push_back("quantized: " + count_text(q.quantized_params) + " parameters in " + count_text(q.quantized_tensors) +
                        " weights; not quantized: " + count_text(q.kept_params) + " in " + count_text(q.kept_tensors) + " tensors");
    }
    if (c.safetensors && c.safetensors->complete && c.safetensors->files > 0)
        facts.push_back("True checkpoint size: " + amount_with_unit(static_cast<double>(c.safetensors->file_bytes), app.ui.unit) +
                        " (" + count_text(c.safetensors->file_bytes) + " bytes, " + std::to_string(c.safetensors->files) + " safetensors files)");
    if (c.gguf && c.gguf->file_bytes > 0)
        facts.push_back("True checkpoint size: " + amount_with_unit(static_cast<double>(c.gguf->file_bytes), app.ui.unit) +
                        " (" + count_text(c.gguf->file_bytes) + " bytes, GGUF)");
    if (c.quantization)
        facts.push_back("quantization: " + c.quantization->description +
                        (c.quantization->format ? std::string(" -> ") + enum_name(*c.quantization->format) : std::string(" (no vramlens weight format)")));
    if (c.adapter)
        facts.push_back("LoRA adapter on " + (c.adapter->base_model.empty() ? std::string("(base model not named)") : c.adapter->base_model) +
                        ": rank " + std::to_string(c.adapter->rank));
}

}  // namespace

bool request_hub_import(AppState& app) {
    Result<HubReference> ref = parse_hub_reference(app.ui.hub_ref, app.ui.env.hub_endpoint);
    app.ui.hub_facts.clear();
    app.ui.hub_warnings.clear();
    if (!ref.ok()) {
        fail(app, errors_notice(ref.errors));
        return false;
    }
    const Json request = {{"repo", ref->repo_id}, {"revision", ref->revision}, {"file", ref->file}, {"endpoint", app.ui.env.hub_endpoint}};
    app.outbox.push_back({"hub", request.dump(), app.ui.hub_token, "", 0, 0, 0, 0});
    app.ui.hub_asked = true;
    app.ui.hub_state = HubState::Fetching;
    app.ui.hub_message = Notice().add("", "", "Reading " + ref->repo_id + (ref->revision == kHubDefaultRevision ? std::string() : "@" + ref->revision) +
                                                " (" + app.ui.env.hub_endpoint + ")");
    return true;
}

bool hub_import_done(AppState& app, std::string_view payload, const std::map<std::string, std::string>& heads) {
    app.ui.hub_facts.clear();
    app.ui.hub_warnings.clear();
    std::vector<FieldError> errs;
    std::optional<Json> parsed = parse_json_input(payload, "hub", errs);
    if (!parsed || !parsed->is_object()) {
        Notice n;
        n.add("", "", "the page's answer cannot be read:");
        fail(app, errs.empty() ? n.add(" ", "", "not an object") : with_errors(n, errs));
        return false;
    }
    const Json& p = *parsed;
    const std::string repo = text_of(p, "repo", errs).value_or("");
    const std::string revision = text_of(p, "revision", errs).value_or("");
    CheckpointFiles files;
    files.config_text = text_of(p, "config", errs);
    files.adapter_text = text_of(p, "adapter", errs);
    if (std::optional<std::string> index = text_of(p, "index", errs)) {
        Result<SafetensorsIndex> r = read_safetensors_index(*index);
        for (const FieldError& e : r.errors) errs.push_back({"model.safetensors.index.json: " + e.field, e.message});
        if (r.ok()) files.index = *r;
    }
    if (const auto shards = p.find("shards"); shards != p.end() && shards->is_array()) {
        for (const Json& f : *shards) {
            std::string name;
            uint64_t size = 0;
            const std::string* head = nullptr;
            if (!file_of(f, heads, "hub.shards", name, size, head, errs)) continue;
            Result<SafetensorsHeader> h = read_safetensors_header(*head, size);
            for (const FieldError& e : h.errors) errs.push_back({name + ": " + e.field, e.message});
            for (const std::string& w : h.warnings) app.ui.hub_warnings.push_back({name, w});
            if (h.ok()) files.shards.push_back({name, size, *h});
        }
    }
    if (const auto missing = p.find("missing_shards"); missing != p.end() && missing->is_array())
        for (const Json& m : *missing)
            if (m.is_string()) files.missing_shards.push_back(m.get<std::string>());
    if (const auto g = p.find("gguf"); g != p.end() && !g->is_null()) {
        std::string name;
        uint64_t size = 0;
        const std::string* head = nullptr;
        if (file_of(*g, heads, "hub.gguf", name, size, head, errs)) {
            Result<GgufHeader> h = read_gguf_header(*head, size);
            for (const FieldError& e : h.errors) errs.push_back({name + ": " + e.field, e.message});
            if (h.ok()) {
                files.gguf = *h;
                files.gguf_file_bytes = size;
            }
        }
    }
    if (!files.config_text && !files.gguf && errs.empty())
        errs.push_back({"hub", repo + " has no config.json, adapter_config.json or .gguf file that vramlens reads"});
    if (!errs.empty()) {
        fail(app, errors_notice(errs).add(" ", "", std::string(hub_offline_alternative())));
        return false;
    }
    CheckpointPart part = CheckpointPart::Config;
    Result<CheckpointImport> c = import_checkpoint(files, &part);
    for (const std::string& w : c.warnings) app.ui.hub_warnings.push_back({"", w});
    if (!c.ok()) {
        const char* file = part == CheckpointPart::Adapter ? "adapter_config.json" : "config.json";
        Notice n;
        n.add("", "", std::string(file) + " of " + repo + " cannot be imported:");
        fail(app, with_errors(n, c.errors));
        return false;
    }
    if (!c->model) {
        fail(app, Notice().add("", "", repo + ": the checkpoint gives no model.").add(" ", "", std::string(hub_offline_alternative())));
        return false;
    }
    Scenario s = app.scenario;
    apply_checkpoint_import(*c, s);
    s.model.name = repo.substr(repo.find('/') + 1);  // what the user asked for (a config.json seldom names its model)
    s.model.source = {repo, revision};
    app.scenario = s;
    app.ui.source = ModelSource::Config;
    app.ui.preset_id.clear();
    app.ui.config_errors.clear();
    app.ui.config_warnings.clear();
    app.ui.hub_state = HubState::Done;
    app.ui.hub_message = Notice().add("", "", "Imported: " + s.model.name + " (" + repo + "@" + revision.substr(0, 12) + ")");
    checkpoint_facts(app, *c, p);
    app.dirty = true;
    return true;
}

void hub_import_failed(AppState& app, int status, std::string_view x_error_code, std::string_view retry_after, std::string_view file,
                       std::string_view detail) {
    Result<HubReference> ref = parse_hub_reference(app.ui.hub_ref, app.ui.env.hub_endpoint);
    const std::string repo = ref.ok() ? ref->repo_id : app.ui.hub_ref;
    fail(app, Notice().add("", "", hub_error_message(status, x_error_code, retry_after, repo, file, detail)));
}

}  // namespace vl::ui
