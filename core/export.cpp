// Export formats (export.h). Layout only: every number printed here was computed by estimate().
#include "export.h"

#include <algorithm>
#include "text_format.h"
#include <nlohmann/json.hpp>

#include "framework_profiles.h"
#include "json_input.h"
#include "scenario_json_value.h"
#include "units.h"

namespace vl {

std::span<const EnumName<ExportFormat>> enum_names(ExportFormat) {
    static constexpr EnumName<ExportFormat> kNames[] = {
        {ExportFormat::Table, "table"}, {ExportFormat::Json, "json"}, {ExportFormat::Markdown, "markdown"}, {ExportFormat::Csv, "csv"}};
    return kNames;
}

const char* phase_label(Mode mode, Phase p) {
    if (mode == Mode::Infer && p == Phase::Forward) return "prefill";
    if (mode == Mode::Infer && p == Phase::Step) return "decode";
    return enum_name(p);
}

std::string escape_control_chars(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0u;
        if (c < 0x20 || c == 0x7f) {
            out += vl::format("\\x{:02x}", c);
        } else if (c == 0xc2 && next >= 0x80 && next <= 0x9f) {  // U+0080..U+009F in UTF-8
            out += vl::format("\\u{:04x}", next);
            ++i;
        } else {
            out += text[i];
        }
    }
    return out;
}

namespace {

using Json = nlohmann::ordered_json;

constexpr Phase kPhases[] = {Phase::Load, Phase::Forward, Phase::Backward, Phase::Step};

// Phases a component is live in, e.g. "forward backward"; inference never lists backward.
std::string phase_list(Mode mode, unsigned mask, const char* sep) {
    std::string out;
    for (Phase p : kPhases) {
        if (!(mask & phase_bit(p)) || (mode == Mode::Infer && p == Phase::Backward)) continue;
        if (!out.empty()) out += sep;
        out += phase_label(mode, p);
    }
    return out;
}

std::string heading(const Scenario& s) {
    std::string model = s.model.name.empty() ? std::string("(unnamed model)") : escape_control_chars(s.model.name);
    return vl::format("{}, {}, {} x {}, per GPU", model, enum_name(s.mode), s.gpu_count, escape_control_chars(s.gpu.name));
}

// What the capacity is: the CUDA-visible total, and the driver's reserve below nvidia-smi's total when there is one.
std::string capacity_text(const Estimate& e, SizeUnit u) {
    std::string t = "GPU memory " + amount_with_unit(e.gpu_usable_bytes, u) + " usable (what CUDA reports";
    if (e.gpu_reported_bytes > e.gpu_usable_bytes)
        t += "; nvidia-smi " + amount_with_unit(e.gpu_reported_bytes, u) + ", " + amount_with_unit(e.gpu_reported_bytes - e.gpu_usable_bytes, u) +
             " reserved by the driver";
    t += ")";
    if (e.gpu_capacity_bytes != e.gpu_usable_bytes) t += ", capacity " + amount_with_unit(e.gpu_capacity_bytes, u);
    return t;
}

std::string verdict(const Estimate& e, SizeUnit u) {
    if (e.fits()) return "fits, " + amount_with_unit(e.headroom_bytes(), u) + " headroom";
    return "does not fit, " + amount_with_unit(-e.headroom_bytes(), u) + " over";
}

// Inference with an architecture: the KV cache capacity is a number to show.
bool has_kv(const Scenario& s, const Estimate& e) { return s.mode == Mode::Infer && e.ok() && e.kv.bytes_per_token > 0; }

}  // namespace

std::string kv_capacity_text(const Scenario& s, const Estimate& e, SizeUnit u) {
    if (!has_kv(s, e)) return {};
    const KvCapacity& k = e.kv;
    const std::string head = s.infer.engine == Engine::VLLM
                                 ? "KV cache pool: " + group_thousands(k.blocks) + " blocks of " + group_thousands(k.block_size) + " tokens = " +
                                       group_thousands(k.tokens) + " tokens"
                                 : "KV cache capacity: " + group_thousands(k.tokens) + " tokens";
    return head + " (" + amount_with_unit(k.pool_bytes, u) + ", " + grouped_whole(k.bytes_per_token) + " B per token), " +
           group_thousands(k.sequences) + " sequences of " + group_thousands(s.infer.context) + " tokens";
}

std::string shown_reserve_text(const Estimate& e, SizeUnit u) {
    // Said where it prints a number other than the peak's.
    if (!e.ok() || *e.shown_reserve.id == '\0' || amount_with_unit(e.shown_bytes, u) == amount_with_unit(e.total_bytes, u)) return {};
    return "nvidia-smi will show about " + amount_with_unit(e.shown_bytes, u) +
           " in a run with room (the caching allocator keeps its freed blocks: a reserve of " + amount_with_unit(e.shown_reserve.bytes, u) +
           " at the peak; the peak that must fit counts the holes an out-of-memory leaves)";
}

std::string mechanisms_text(const Estimate& e, SizeUnit u) {
    if (!e.ok() || e.mechanisms.empty()) return {};
    std::string out = "By mechanism at the peak: ";
    for (size_t i = 0; i < e.mechanisms.size(); ++i) {
        const MechanismBytes& m = e.mechanisms[i];
        out += (i ? ", " : "") + std::string(m.label) + " " + amount_with_unit(m.bytes, u) + " (" + fixed_text(m.share * 100, 1) + " %)";
    }
    return out;
}

namespace {

std::string errors_text(const Estimate& e) {
    std::string out;
    for (const FieldError& err : e.errors) out += "error: " + escape_control_chars(to_string(err)) + "\n";
    return out;
}

std::string pad(const std::string& s, size_t width) { return s.size() >= width ? s : s + std::string(width - s.size(), ' '); }
std::string pad_left(const std::string& s, size_t width) { return s.size() >= width ? s : std::string(width - s.size(), ' ') + s; }

// "What fits: max micro-batch 6, max sequence 11264, fewest GPUs 4 (TP 2, PP 1, ZeRO 1)"; "" without answers.
std::string answers_text(const Scenario& s, const Estimate& e, const ExportOptions& o) {
    if (!o.answers) return {};
    std::string text;
    for (const FitAnswerRow& r : fit_answer_rows(s, e, *o.answers)) text += (text.empty() ? "What fits: " : ", ") + r.label + " " + r.text;
    return text;
}

// "Fits with one change: QLoRA (peak 17.60 of 24.00 GiB); 2 GPUs (TP 2, PP 1, ZeRO 0) (peak ...)"; "" without levers.
std::string levers_text(const ExportOptions& o) {
    if (!o.levers || o.levers->empty()) return {};
    std::string text;
    for (const Lever& l : *o.levers)
        text += (text.empty() ? "Fits with one change: " : "; ") + l.label + " (peak " + amount(l.total_bytes, o.unit) + " of " +
                amount(l.capacity_bytes, o.unit) + " " + unit_name(o.unit) + ")";
    return text;
}

std::string table(const Scenario& s, const Estimate& e, const ExportOptions& o) {
    std::string out = heading(s) + "\n";
    if (!e.ok()) return out + errors_text(e);
    const std::string unit = unit_name(o.unit);
    size_t label_w = 9, cat_w = 8, num_w = std::max<size_t>(unit.size(), 6);
    for (const Component& c : e.components) {
        label_w = std::max(label_w, std::string(c.label).size());
        cat_w = std::max(cat_w, std::string(enum_name(c.category)).size());
        num_w = std::max(num_w, amount(c.bytes, o.unit).size());
    }
    num_w = std::max(num_w, amount(std::max(e.total_bytes, e.gpu_capacity_bytes), o.unit).size());
    out += pad("Component", label_w) + "  " + pad("Category", cat_w) + "  " + pad_left(unit, num_w) + "  Phases\n";
    for (const Component& c : e.components) {
        out += pad(c.label, label_w) + "  " + pad(enum_name(c.category), cat_w) + "  " + pad_left(amount(c.bytes, o.unit), num_w) + "  " +
               (c.host ? std::string("host (not on the GPU)") : phase_list(s.mode, c.phases, " ")) + "\n";
        if (o.formulas) {
            out += "    = " + std::string(c.formula()) + "\n";
            if (!c.substituted().empty()) out += "    = " + std::string(c.substituted()) + "\n";
            if (*c.source) out += "    source: " + std::string(c.source) + "\n";
        }
    }
    const size_t rule_w = label_w + 2 + cat_w + 2 + num_w;
    out += std::string(rule_w, '-') + "\n";
    out += pad("Peak (" + std::string(phase_label(s.mode, e.peak_phase)) + ")", label_w + 2 + cat_w) + "  " +
           pad_left(amount(e.total_bytes, o.unit), num_w) + "  of " + amount(e.gpu_capacity_bytes, o.unit) + " " + unit + ": " +
           verdict(e, o.unit) + "\n";
    if (const std::string shown = shown_reserve_text(e, o.unit); !shown.empty()) {
        out += shown + "\n";
        if (o.formulas) {
            out += "    = " + std::string(e.shown_reserve.formula()) + "\n";
            if (!e.shown_reserve.substituted().empty()) out += "    = " + std::string(e.shown_reserve.substituted()) + "\n";
            out += "    source: " + std::string(e.shown_reserve.source) + "\n";
        }
    }
    out += capacity_text(e, o.unit) + "\n";
    out += "Phases:";
    for (Phase p : kPhases) {
        if (s.mode == Mode::Infer && p == Phase::Backward) continue;
        out += std::string(p == Phase::Load ? " " : ", ") + phase_label(s.mode, p) + " " + amount(e.phase_bytes[static_cast<int>(p)], o.unit);
    }
    out += " " + unit + "\n";
    if (e.host_bytes > 0) out += "Host memory (offloaded): " + amount(e.host_bytes, o.unit) + " " + unit + "\n";
    if (const std::string m = mechanisms_text(e, o.unit); !m.empty()) out += m + "\n";
    if (const std::string p = profile_text(s); !p.empty()) out += p + "\n";
    if (has_kv(s, e)) out += kv_capacity_text(s, e, o.unit) + "\n";
    if (const std::string fits = answers_text(s, e, o); !fits.empty()) out += fits + "\n";
    if (const std::string levers = levers_text(o); !levers.empty()) out += levers + "\n";
    for (const std::string& w : e.warnings) out += "warning: " + escape_control_chars(w) + "\n";
    return out;
}

// A Markdown table cell: pipes escaped, line breaks flattened, other control characters escaped;
// `code` for formulas.
std::string md_cell(const std::string& text, bool code = false) {
    std::string flat = text;
    std::replace(flat.begin(), flat.end(), '\n', ' ');
    std::replace(flat.begin(), flat.end(), '\r', ' ');
    std::string t;
    for (char c : escape_control_chars(flat)) {
        if (c == '|') t += "\\|";
        else t += c;
    }
    if (code && !t.empty() && t.find('`') == std::string::npos) return "`" + t + "`";
    return t;
}

std::string markdown(const Scenario& s, const Estimate& e, const ExportOptions& o) {
    std::string out = "**" + md_cell(heading(s)) + "**\n\n";
    if (!e.ok()) {
        for (const FieldError& err : e.errors) out += "- error: `" + md_cell(err.field) + "`: " + md_cell(err.message) + "\n";
        return out;
    }
    const std::string unit = unit_name(o.unit);
    out += "| Component | Category | Phases | " + unit + " | Formula | With your numbers | Source |\n";
    out += "|:--|:--|:--|--:|:--|:--|:--|\n";
    for (const Component& c : e.components)
        out += "| " + md_cell(c.label) + " | " + enum_name(c.category) + " | " + (c.host ? std::string("host") : phase_list(s.mode, c.phases, ", ")) +
               " | " + amount(c.bytes, o.unit) + " | " + md_cell(std::string(c.formula()), true) + " | " + md_cell(std::string(c.substituted()), true) + " | " +
               md_cell(c.source) + " |\n";
    out += "| **Peak (" + std::string(phase_label(s.mode, e.peak_phase)) + ")** | | | **" + amount(e.total_bytes, o.unit) + "** | | | |\n\n";
    out += "GPU memory " + amount(e.gpu_capacity_bytes, o.unit) + " " + unit + ": " + verdict(e, o.unit) + ".\n";
    if (const std::string shown = shown_reserve_text(e, o.unit); !shown.empty())
        out += md_cell(shown) + ": " + md_cell(std::string(e.shown_reserve.formula()), true) + " = " +
               md_cell(std::string(e.shown_reserve.substituted()), true) + " " + md_cell(e.shown_reserve.source) + ".\n";
    out += capacity_text(e, o.unit) + ".\n";
    if (e.host_bytes > 0) out += "Host memory (offloaded): " + amount(e.host_bytes, o.unit) + " " + unit + ".\n";
    if (const std::string m = mechanisms_text(e, o.unit); !m.empty()) out += md_cell(m) + ".\n";
    if (const std::string p = profile_text(s); !p.empty()) out += md_cell(p) + ".\n";
    if (has_kv(s, e)) out += md_cell(kv_capacity_text(s, e, o.unit)) + ".\n";
    if (const std::string fits = answers_text(s, e, o); !fits.empty()) out += md_cell(fits) + ".\n";
    if (const std::string levers = levers_text(o); !levers.empty()) out += md_cell(levers) + ".\n";
    for (const std::string& w : e.warnings) out += "\n> warning: " + md_cell(w);
    if (!e.warnings.empty()) out += "\n";
    return out;
}

// RFC 4180: quote a field holding a comma, quote or line break; double the quotes inside.
std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string t = "\"";
    for (char c : text) t += (c == '"') ? std::string("\"\"") : std::string(1, c);
    return t + "\"";
}

std::string csv(const Scenario& s, const Estimate& e, const ExportOptions& o) {
    const std::string unit = unit_name(o.unit);
    std::string out = "id,label,category,phases,host,bytes," + unit + ",formula,substituted,source\n";
    for (const FieldError& err : e.errors) out += csv_field("error." + err.field) + "," + csv_field(err.message) + ",,,,,,,,\n";
    if (!e.ok()) return out;
    auto row = [&](const std::string& id, const std::string& label, const std::string& category, const std::string& phases, bool host,
                   double bytes, const std::string& formula, const std::string& substituted, const std::string& source) {
        out += csv_field(id) + "," + csv_field(label) + "," + csv_field(category) + "," + csv_field(phases) + "," + (host ? "true" : "false") +
               "," + whole_text(bytes) + "," + amount(bytes, o.unit) + "," + csv_field(formula) + "," + csv_field(substituted) + "," +
               csv_field(source) + "\n";
    };
    for (const Component& c : e.components)
        row(c.id, c.label, enum_name(c.category), c.host ? "" : phase_list(s.mode, c.phases, " "), c.host, c.bytes, std::string(c.formula()), std::string(c.substituted()), c.source);
    for (Phase p : kPhases) {
        if (s.mode == Mode::Infer && p == Phase::Backward) continue;
        const char* name = phase_label(s.mode, p);
        row(std::string("total.") + name, std::string("Total in ") + name, "", name, false, e.phase_bytes[static_cast<int>(p)], "", "", "");
    }
    row("total.peak", std::string("Peak (") + phase_label(s.mode, e.peak_phase) + ")", "", phase_label(s.mode, e.peak_phase), false, e.total_bytes, "", "", "");
    if (const Component& r = e.shown_reserve; *r.id != '\0') {
        row(r.id, r.label, enum_name(r.category), phase_list(s.mode, r.phases, " "), false, r.bytes, std::string(r.formula()),
            std::string(r.substituted()), r.source);
        row("total.shown", "nvidia-smi in a run with room", "", "", false, e.shown_bytes, "", "", "");
    }
    row("gpu.capacity", "GPU memory", "", "", false, e.gpu_capacity_bytes, "", "", "");
    row("gpu.usable", "GPU memory CUDA reports", "", "", false, e.gpu_usable_bytes, "", "", "");
    row("gpu.headroom", "Headroom", "", "", false, e.headroom_bytes(), "", "", "");
    if (e.host_bytes > 0) row("host.total", "Host memory (offloaded)", "", "", true, e.host_bytes, "", "", "");
    if (has_kv(s, e)) {
        row("kv.pool_bytes", "KV cache pool", "", "", false, e.kv.pool_bytes, "", "", "");
        row("kv.bytes_per_token", "KV cache per token", "", "", false, e.kv.bytes_per_token, "", "", "");
        // Counts, not bytes: the number in the bytes column, the unit column empty.
        auto count = [&](const char* id, const char* label, int64_t v) {
            out += std::string(id) + "," + csv_field(label) + ",count,,false," + std::to_string(v) + ",,,,\n";
        };
        count("kv.blocks", "KV blocks", e.kv.blocks);
        count("kv.block_size", "Tokens per KV block", e.kv.block_size);
        count("kv.tokens", "KV tokens", e.kv.tokens);
        count("kv.sequences", "Sequences of the context", e.kv.sequences);
    }
    if (o.answers)  // counts too; -1: none fits
        for (const FitAnswerRow& r : fit_answer_rows(s, e, *o.answers))
            out += "answer." + r.id + "," + csv_field(r.label + ": " + r.text) + ",count,,false," + std::to_string(r.value) + ",,,,\n";
    if (o.levers)  // the peak with the change
        for (const Lever& l : *o.levers) row("lever." + l.id, l.label, "", "", false, l.total_bytes, "", "", "");
    return out;
}

// A framework profile's setting as JSON: its value is the profile table's own JSON text (a test reads
// every one), read by the one JSON reader (json_input.h) like every other JSON text.
Json profile_value(const std::string& text) {
    std::vector<FieldError> errs;
    return parse_ordered_json_input(text, "value", errs).value_or(Json());
}

// One component as the JSON export lists it.
Json component_json(const Scenario& s, const Component& c) {
    Json phase_names = Json::array();
    for (Phase p : kPhases)
        if ((c.phases & phase_bit(p)) && !(s.mode == Mode::Infer && p == Phase::Backward)) phase_names.push_back(phase_label(s.mode, p));
    return Json{{"id", c.id}, {"label", c.label}, {"category", enum_name(c.category)}, {"phases", phase_names},
                {"host", c.host}, {"bytes", c.bytes}, {"formula", std::string(c.formula())}, {"substituted", std::string(c.substituted())}, {"source", c.source}};
}

std::string json(const Scenario& s, const Estimate& e, const ExportOptions& o) {
    Json j = Json::object();
    j["vramlens"] = VRAMLENS_VERSION;
    j["scenario"] = scenario_json_value(s, JsonStyle::Pretty);
    if (const FrameworkProfile* p = find_profile(s.profile)) {
        Json sets = Json::array();
        for (const ProfileSetting& st : p->settings)
            sets.push_back({{"field", st.field}, {"value", profile_value(st.value)}, {"source", st.source}});
        j["profile"] = {{"id", p->id}, {"label", p->label}, {"versions", p->versions}, {"intact", profile_intact(s)},
                        {"text", profile_text(s)}, {"sets", sets}};
    }
    j["ok"] = e.ok();
    j["fits"] = e.fits();
    if (e.ok()) {
        j["peak_phase"] = phase_label(s.mode, e.peak_phase);
        j["total_bytes"] = e.total_bytes;
        j["capacity_bytes"] = e.gpu_capacity_bytes;
        j["usable_bytes"] = e.gpu_usable_bytes;
        j["nvidia_smi_bytes"] = e.gpu_reported_bytes;
        j["headroom_bytes"] = e.headroom_bytes();
        j["shown_bytes"] = e.shown_bytes;  // nvidia-smi in a run with room (the peak where no second reserve applies)
        j["host_bytes"] = e.host_bytes;
        Json phases = Json::object();
        for (Phase p : kPhases)
            if (!(s.mode == Mode::Infer && p == Phase::Backward)) phases[phase_label(s.mode, p)] = e.phase_bytes[static_cast<int>(p)];
        j["phase_bytes"] = phases;
        j["params"] = {{"total", e.params.total},
                       {"embedding", e.params.embedding},
                       {"lm_head", e.params.lm_head},
                       {"non_embedding", e.params.non_embedding},
                       {"active_per_token", e.params.active_per_token},
                       {"largest_layer", e.params.largest_layer}};
        Json comps = Json::array();
        for (const Component& c : e.components) comps.push_back(component_json(s, c));
        j["components"] = comps;
        // The reserve shown_bytes counts in place of overhead.fragmentation (not a part of the peak that must fit).
        if (*e.shown_reserve.id != '\0') j["shown_reserve"] = component_json(s, e.shown_reserve);
        Json mech = Json::array();
        for (const MechanismBytes& m : e.mechanisms) mech.push_back({{"id", m.id}, {"label", m.label}, {"bytes", m.bytes}, {"share", m.share}});
        j["mechanisms"] = mech;
        if (has_kv(s, e))
            j["kv"] = {{"blocks", e.kv.blocks},           {"block_size", e.kv.block_size}, {"tokens", e.kv.tokens},
                       {"sequences", e.kv.sequences},     {"pool_bytes", e.kv.pool_bytes}, {"bytes_per_token", e.kv.bytes_per_token}};
    }
    if (o.answers) {
        Json answers = Json::array();
        for (const FitAnswerRow& r : fit_answer_rows(s, e, *o.answers))
            answers.push_back({{"id", r.id}, {"label", r.label}, {"value", r.value}, {"text", r.text}});
        j["answers"] = answers;
    }
    if (o.levers) {
        Json levers = Json::array();
        for (const Lever& l : *o.levers)
            levers.push_back({{"id", l.id}, {"label", l.label}, {"total_bytes", l.total_bytes}, {"capacity_bytes", l.capacity_bytes},
                              {"scenario", scenario_json_value(l.scenario, JsonStyle::Pretty)}});
        j["levers"] = levers;
    }
    j["warnings"] = e.warnings;
    Json errs = Json::array();
    for (const FieldError& err : e.errors) errs.push_back({{"field", err.field}, {"message", err.message}});
    j["errors"] = errs;
    return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string format_rows(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows, ExportFormat f) {
    auto raw = [](const std::vector<std::string>& row, size_t i) { return i < row.size() ? row[i] : std::string(); };
    auto cell = [&](const std::vector<std::string>& row, size_t i) { return f == ExportFormat::Table ? escape_control_chars(raw(row, i)) : raw(row, i); };
    std::string out;
    switch (f) {
        case ExportFormat::Table: {
            std::vector<size_t> width(header.size());
            for (size_t i = 0; i < header.size(); ++i) {
                width[i] = header[i].size();
                for (const auto& r : rows) width[i] = std::max(width[i], cell(r, i).size());
            }
            auto line = [&](const std::vector<std::string>& r) {
                std::string l;
                for (size_t i = 0; i < header.size(); ++i) {
                    if (i) l += "  ";
                    l += i + 1 == header.size() ? cell(r, i) : pad(cell(r, i), width[i]);
                }
                out += l + "\n";
            };
            line(header);
            for (const auto& r : rows) line(r);
            return out;
        }
        case ExportFormat::Json: {
            Json a = Json::array();
            for (const auto& r : rows) {
                Json o = Json::object();
                for (size_t i = 0; i < header.size(); ++i) o[header[i]] = cell(r, i);
                a.push_back(std::move(o));
            }
            return a.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
        }
        case ExportFormat::Markdown: {
            auto line = [&](const std::vector<std::string>& r) {
                out += "|";
                for (size_t i = 0; i < header.size(); ++i) {
                    out += ' ';
                    out += md_cell(cell(r, i));
                    out += " |";
                }
                out += "\n";
            };
            line(header);
            out += "|";
            for (size_t i = 0; i < header.size(); ++i) out += ":--|";
            out += "\n";
            for (const auto& r : rows) line(r);
            return out;
        }
        case ExportFormat::Csv: {
            auto line = [&](const std::vector<std::string>& r) {
                for (size_t i = 0; i < header.size(); ++i) {
                    if (i) out += ',';
                    out += csv_field(cell(r, i));
                }
                out += "\n";
            };
            line(header);
            for (const auto& r : rows) line(r);
            return out;
        }
    }
    return out;
}

std::string export_estimate(const Scenario& s, const Estimate& e, ExportFormat f, const ExportOptions& o) {
    switch (f) {
        case ExportFormat::Table: return table(s, e, o);
        case ExportFormat::Json: return json(s, e, o);
        case ExportFormat::Markdown: return markdown(s, e, o);
        case ExportFormat::Csv: return csv(s, e, o);
    }
    return {};
}

}  // namespace vl
