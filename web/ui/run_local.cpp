// Run locally: s.local edits and the plan as text (run_local.h). Every number is plan_local's.
#include "ui/run_local.h"

#include <algorithm>

#include "enum_names.h"
#include "inference/weight_formats.h"
#include "model/gguf.h"
#include "ui/run_local_compare.h"
#include "units.h"

namespace vl::ui {

namespace {

template <class T>
bool listed(const std::vector<T>& v, T x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

void set_local_engine(AppState& app, LocalEngine e) {
    LocalOptions& lo = app.scenario.local;
    const bool other_family = is_serving(e) != is_serving(lo.engine);  // llama.cpp's f16 cache is not vLLM's auto
    lo.engine = e;
    if (const std::vector<WeightFormat> w = local_weight_choices(e); !listed(w, lo.weights))
        set_local_weights(app, is_serving(e) ? WeightFormat::BF16 : WeightFormat::GGUF_Q4_K_M);
    if (const std::vector<KvDtype> kv = local_kv_choices(e); other_family || !listed(kv, lo.kv)) lo.kv = kv.front();
    if (!is_serving(e) && lo.context == 0) lo.context = LocalOptions{}.context;
    app.dirty = true;
}

void set_local_weights(AppState& app, WeightFormat w) {
    app.scenario.local.weights = w;  // an imported GGUF's bytes size only their own type (gguf_bytes.type)
    app.dirty = true;
}

void set_local_machine(AppState& app, bool mac) {
    LocalOptions& lo = app.scenario.local;
    if (mac == !lo.apple_chip.empty()) return;
    if (mac) {
        app.ui.local_pc_gpus = lo.gpus;
        app.ui.local_pc_custom_gpus = lo.custom_gpus;
        lo.gpus.clear();
        lo.custom_gpus.clear();
        lo.apple_chip = apple_chips().front().id;
    } else {
        lo.apple_chip.clear();
        lo.custom_gpus = app.ui.local_pc_custom_gpus;
        lo.gpus = app.ui.local_pc_gpus.empty() && lo.custom_gpus.empty() ? LocalOptions{}.gpus : app.ui.local_pc_gpus;
    }
    app.dirty = true;
}

size_t local_gpu_count(const LocalOptions& lo) { return lo.apple_chip.empty() ? lo.gpus.size() + lo.custom_gpus.size() : 1; }

namespace {

void gpus_changed(AppState& app) {
    LocalOptions& lo = app.scenario.local;
    const size_t n = local_gpu_count(lo);
    if (!lo.tensor_split.empty() && lo.tensor_split.size() != n) lo.tensor_split.clear();
    if (lo.main_gpu >= static_cast<int64_t>(n)) lo.main_gpu = 0;
    app.dirty = true;
}

}  // namespace

void add_local_gpu(AppState& app, const std::string& id) {
    app.scenario.local.gpus.push_back(id);
    gpus_changed(app);
}

void add_custom_gpu(AppState& app) {
    // A start to edit: the figures of the last preset GPU (or the default one).
    const LocalOptions& lo = app.scenario.local;
    const GpuPreset* base = find_gpu(lo.gpus.empty() ? LocalOptions{}.gpus.front() : lo.gpus.back());
    if (!base) base = find_gpu(LocalOptions{}.gpus.front());
    app.scenario.local.custom_gpus.push_back({"Custom GPU", base->cuda_total_bytes / kGiB, base->memory_bandwidth / kGB, base->fp16_tensor_flops / 1e12});
    gpus_changed(app);
}

void remove_custom_gpu(AppState& app, size_t i) {
    std::vector<LocalCustomGpu>& g = app.scenario.local.custom_gpus;
    if (i >= g.size()) return;
    g.erase(g.begin() + static_cast<std::ptrdiff_t>(i));
    gpus_changed(app);
}

void set_local_gpu(AppState& app, size_t i, const std::string& id) {
    if (i >= app.scenario.local.gpus.size()) return;
    app.scenario.local.gpus[i] = id;
    app.dirty = true;
}

void remove_local_gpu(AppState& app, size_t i) {
    std::vector<std::string>& g = app.scenario.local.gpus;
    if (i >= g.size()) return;
    g.erase(g.begin() + static_cast<std::ptrdiff_t>(i));
    gpus_changed(app);
}

std::string local_machine_key(const LocalOptions& lo, bool model_overrides) {
    std::string k;
    auto add = [&k](const std::string& part) {  // appended piece by piece (GCC 12 misreads "/" + std::string as -Wrestrict)
        k += part;
        k += '/';
    };
    for (const LocalCustomGpu& g : lo.custom_gpus) {
        add(g.name);
        add(std::to_string(g.memory_gib));
        add(std::to_string(g.bandwidth_gbs));
        add(std::to_string(g.fp16_tflops));
    }
    add(enum_name(lo.split_mode));
    add(std::to_string(lo.main_gpu));
    add(std::to_string(lo.ubatch));
    add(lo.kv_offload ? "" : "nkvo");
    for (double x : lo.tensor_split) add(std::to_string(x));
    if (!model_overrides) return k;
    add(std::to_string(lo.ngl));
    add(std::to_string(lo.n_cpu_moe));
    add(std::to_string(lo.mmproj_bytes));
    add(lo.mmproj_offload ? "" : "no-mmproj-offload");
    add(std::to_string(lo.tp));
    add(std::to_string(lo.pp));
    return k;
}

std::string rank_machine_key(const Scenario& s) {
    const LocalOptions& lo = s.local;
    std::string k = std::string(local_kv_name(lo.engine, lo.kv)) + "|" + std::to_string(lo.context) + "|" + (lo.flash_attention ? "fa" : "") + "|" +
                    std::to_string(lo.ram_bytes) + "|" + lo.apple_chip + "|" + std::to_string(lo.wired_limit_mb) + "|" +
                    std::to_string(static_cast<int>(lo.engine));
    for (const std::string& g : lo.gpus) k += "|" + g;
    return k + "|" + local_machine_key(lo, false);
}

void rank_local_models(AppState& app) {
    app.scenario.local.rank = true;
    app.local_rank = rank_local(app.scenario);
    app.local_rank_for = rank_machine_key(app.scenario);
    app.dirty = true;
}

void use_ranked(AppState& app, const RankRow& r) {
    if (!select_model_preset(app, r.id)) return;
    set_local_weights(app, r.weights);
}

std::vector<RankRow> shown_rank_rows(const AppState& app, size_t top) {
    std::vector<RankRow> rows;
    for (const RankRow& r : best_per_model(app.local_rank))
        if (r.verdict == RankVerdict::Ranked && rows.size() < top) rows.push_back(r);
    return rows;
}

bool import_mmproj(AppState& app, const std::string& name, std::string_view head, double file_size) {
    const Result<GgufHeader> h = read_gguf_header(head, file_size > 0 ? std::optional<uint64_t>(static_cast<uint64_t>(file_size)) : std::nullopt);
    if (!h.ok()) {
        app.ui.mmproj_message = Notice().add(name + ": ", h.errors.front().field, h.errors.front().message);
        return false;
    }
    // As `vramlens plan --mmproj FILE` (cli/cli.cpp): the tensors' bytes, and the encoder's shape when the clip.vision keys give it.
    LocalOptions& lo = app.scenario.local;
    lo.mmproj_bytes = 0;
    for (const GgufTensor& t : h.value->tensors) lo.mmproj_bytes += static_cast<double>(t.bytes);
    const VisionEncoderRead enc = vision_encoder_from_gguf(*h.value);
    lo.mmproj_encoder = enc.error.empty() ? enc.encoder : VisionEncoder{};
    if (!dynamic_resolution(lo.mmproj_encoder)) lo.image_max_tokens = 0;
    lo.mmproj_file = name.size() <= 255 ? name : std::string();
    app.ui.mmproj_message = Notice().add("", name, bytes_label(lo.mmproj_bytes, app.ui.unit) + ", " +
                                                       (enc.error.empty() ? "image encoder " + (enc.encoder.projector.empty() ? std::string("clip") : enc.encoder.projector)
                                                                          : enc.error));
    app.dirty = true;
    return true;
}

bool local_has_vision(const LocalPlan& p) {
    for (const LocalDevice& d : p.devices)
        if (d.vision > 0) return true;
    return false;
}

std::vector<std::string> local_device_headers(const AppState& app) {
    const Lang L = app.ui.lang;
    std::vector<std::string> h = {tr(L, S::Device), tr(L, S::LayersCol), tr(L, S::WeightsCol), tr(L, S::KvCol), tr(L, S::ComputeCol)};
    if (local_has_vision(app.local)) h.push_back(tr(L, S::VisionCol));
    h.insert(h.end(), {tr(L, S::Total), tr(L, S::Capacity)});
    return h;
}

std::vector<std::string> local_device_cells(const AppState& app, const LocalDevice& d) {
    const SizeUnit u = app.ui.unit;
    std::vector<std::string> c = {say(app, d.name), say(app, d.layers), bytes_label(d.weights, u), bytes_label(d.kv, u), bytes_label(d.compute, u)};
    if (local_has_vision(app.local)) c.push_back(bytes_label(d.vision, u));
    c.insert(c.end(), {bytes_label(d.total, u), bytes_label(d.capacity, u)});
    return c;
}

std::string local_verdict(const AppState& app) {
    const LocalPlan& p = app.local;
    const Lang L = app.ui.lang;
    if (!p.ok()) return std::string(tr(L, S::Errors)) + ": " + say(app, p.errors.front());
    return std::string(tr(L, p.fits ? S::Fits : S::DoesNotFit)) + " · " + say(app, p.fits || p.advice.empty() ? p.summary : p.advice);
}

nlohmann::json local_results_text(const AppState& app) {
    const LocalPlan& p = app.local;
    const Lang L = app.ui.lang;
    nlohmann::json j;
    j["lang"] = L == Lang::Zh ? "zh" : "en";
    j["ok"] = p.ok();
    j["fits"] = p.ok() && p.fits;
    j["title"] = std::string(tr(L, S::RunLocally)) + " · " + tr(L, S::Results);
    j["verdict"] = local_verdict(app);
    j["total"] = p.ok() ? std::string(tr(L, S::LargestContext)) + ": " + std::to_string(p.largest_context) : std::string("—");
    j["headers"] = local_device_headers(app);
    j["rows"] = nlohmann::json::array();
    for (const LocalDevice& d : p.devices) j["rows"].push_back(local_device_cells(app, d));
    j["total_row"] = nlohmann::json::array();
    j["errors_title"] = tr(L, S::Errors);
    j["errors"] = nlohmann::json::array();
    for (const FieldError& e : p.errors) j["errors"].push_back(say(app, e));
    j["notes_title"] = tr(L, S::Warnings);
    j["notes"] = nlohmann::json::array();
    if (p.ok()) {
        j["notes"].push_back(say(app, p.summary));
        if (!p.speed.empty()) j["notes"].push_back(std::string(tr(L, S::Speed)) + ": " + say(app, p.speed));
        for (const LaunchLine& l : p.launch) j["notes"].push_back(std::string(tr(L, S::Launch)) + " (" + l.what + "): " + l.text);
    }
    if (app.scenario.local.rank) {
        if (!app.local_rank.ok()) j["notes"].push_back(std::string(tr(L, S::RankTitle)) + ": " + say(app, app.local_rank.error));
        size_t n = 0;
        for (const RankRow& r : shown_rank_rows(app)) j["notes"].push_back(std::string(tr(L, S::RankTitle)) + " " + std::to_string(++n) + ". " + say(app, rank_row_text(r)));
    }
    compare_notes(app, j["notes"]);
    for (const std::string& n : p.notes) j["notes"].push_back(say(app, n));
    return j;
}

nlohmann::json local_hook(const AppState& app) {
    const LocalPlan& p = app.local;
    nlohmann::json j;
    j["ok"] = p.ok();
    j["fits"] = p.fits;
    j["errors"] = nlohmann::json::array();
    for (const FieldError& e : p.errors) j["errors"].push_back({{"field", e.field}, {"message", e.message}});
    j["context"] = p.context;
    j["largest_context"] = p.largest_context;
    j["summary"] = p.summary;
    j["advice"] = p.advice;
    j["speed"] = p.speed;
    j["devices"] = nlohmann::json::array();
    for (const LocalDevice& d : p.devices)
        j["devices"].push_back({{"name", d.name}, {"layers", d.layers}, {"weights", d.weights}, {"kv", d.kv}, {"compute", d.compute},
                                {"vision", d.vision}, {"total", d.total}, {"capacity", d.capacity}});
    j["launch"] = nlohmann::json::array();
    for (const LaunchLine& l : p.launch) j["launch"].push_back({{"what", l.what}, {"text", l.text}});
    j["notes"] = p.notes;
    j["rank"] = nlohmann::json::array();
    if (app.scenario.local.rank)
        for (const RankRow& r : shown_rank_rows(app))
            j["rank"].push_back({{"id", r.id}, {"weights", weight_format(r.weights).key}, {"decode_tokens_per_s", r.decode_tokens_per_s}});
    j["rank_stale"] = app.scenario.local.rank && app.local_rank_for != rank_machine_key(app.scenario);
    j["compare"] = compare_hook(app);
    return j;
}

}  // namespace vl::ui
