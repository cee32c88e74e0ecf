// The documentation cannot go stale silently: README.md stays short, its two commands are scripts
// that exist and the test command is what CI runs, every repository path and relative link in
// README.md and docs/*.md names something that exists, and each row of docs/architecture.md's
// "where is the formula" table names functions that are in that row's files. Reads the source
// tree; writes nothing.
#include <catch2/catch.hpp>

#include "enum_names.h"
#include "framework_profiles.h"

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "repo_files.h"
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = vl::test::kRepoRoot;
using vl::test::read_text;

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// The text with fenced code blocks (``` ... ```) blanked out, line count kept.
std::string without_fences(const std::string& text) {
    std::string out;
    bool fenced = false;
    for (const std::string& line : lines_of(text)) {
        if (line.rfind("```", 0) == 0) {
            fenced = !fenced;
            out += "\n";
            continue;
        }
        out += (fenced ? "" : line) + "\n";
    }
    return out;
}

// Every `inline code` span of the text, outside fenced blocks.
std::vector<std::string> code_spans(const std::string& text) {
    std::vector<std::string> out;
    for (const std::string& line : lines_of(without_fences(text))) {
        for (size_t open = line.find('`'); open != std::string::npos;) {
            const size_t close = line.find('`', open + 1);
            if (close == std::string::npos) break;
            out.push_back(line.substr(open + 1, close - open - 1));
            open = line.find('`', close + 1);
        }
    }
    return out;
}

std::vector<std::string> words(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

// The folders of this repository whose files the documents name. A word starting with one of them
// and a '/' is a path the reader should find; build/ and .deps/ hold what the scripts make.
const std::set<std::string> kSourceFolders = {"core", "cli", "web", "shell", "tests", "scripts", "docs",
                                              "assets", "bench", "fuzz", "cmake", ".ci"};

// "core/formula.h," -> "core/formula.h"; "" when the word is not a repository path.
std::string repo_path(std::string w) {
    while (!w.empty() && std::string(",;:)(.'\"").find(w.back()) != std::string::npos) w.pop_back();
    while (!w.empty() && std::string("('\"").find(w.front()) != std::string::npos) w.erase(0, 1);
    const size_t slash = w.find('/');
    if (slash == std::string::npos || !kSourceFolders.count(w.substr(0, slash))) return "";
    const size_t hash = w.find('#');
    if (hash != std::string::npos) w.resize(hash);
    const size_t wild = w.find_first_of("*<{");  // "core/*.cpp", "fuzz/<target>": its folder exists
    if (wild != std::string::npos) w.resize(w.rfind('/', wild) + 1);
    return w;
}

// Repository paths named in code spans of a document.
std::vector<std::string> named_paths(const std::string& text) {
    std::vector<std::string> out;
    for (const std::string& span : code_spans(text))
        for (const std::string& w : words(span))
            if (std::string p = repo_path(w); !p.empty()) out.push_back(p);
    return out;
}

// Relative link targets of a document: markdown "](target)" and HTML src="target".
std::vector<std::string> relative_links(const std::string& text) {
    std::vector<std::string> out;
    const std::string t = without_fences(text);
    auto take = [&](const std::string& open, char close) {
        for (size_t at = t.find(open); at != std::string::npos; at = t.find(open, at + 1)) {
            const size_t b = at + open.size(), e = t.find(close, b);
            if (e == std::string::npos) break;
            std::string target = t.substr(b, e - b);
            if (target.rfind("http:", 0) == 0 || target.rfind("https:", 0) == 0 || target.rfind("mailto:", 0) == 0 ||
                target.empty() || target[0] == '#' || target.find(' ') != std::string::npos)
                continue;
            out.push_back(target.substr(0, target.find('#')));
        }
    };
    take("](", ')');
    take("src=\"", '"');
    return out;
}

std::vector<fs::path> documents() {
    std::vector<fs::path> docs = {kRoot / "README.md"};
    for (const auto& entry : fs::directory_iterator(kRoot / "docs"))
        if (entry.is_regular_file() && entry.path().extension() == ".md") docs.push_back(entry.path());
    std::sort(docs.begin() + 1, docs.end());
    return docs;
}

// The cells of a markdown table row "| a | b |" -> {"a", "b"}; empty when the line is no row.
std::vector<std::string> cells(const std::string& line) {
    std::vector<std::string> out;
    if (line.rfind("|", 0) != 0) return out;
    size_t start = 1;
    for (size_t bar = line.find('|', start); bar != std::string::npos; bar = line.find('|', start)) {
        std::string c = line.substr(start, bar - start);
        c.erase(0, c.find_first_not_of(' '));
        c.erase(c.find_last_not_of(' ') + 1);
        out.push_back(c);
        start = bar + 1;
    }
    return out;
}

// The rows of the first table after the line starting with `heading`, header and rule skipped.
std::vector<std::vector<std::string>> table_after(const std::string& text, const std::string& heading) {
    std::vector<std::vector<std::string>> rows;
    const std::vector<std::string> ls = lines_of(text);
    size_t i = 0;
    while (i < ls.size() && ls[i].rfind(heading, 0) != 0) ++i;
    while (i < ls.size() && ls[i].rfind("|", 0) != 0) ++i;
    for (i += 2; i < ls.size() && ls[i].rfind("|", 0) == 0; ++i) rows.push_back(cells(ls[i]));
    return rows;
}

// The single command of each ```sh block between `heading` and the next "## " heading.
std::vector<std::string> commands_in_section(const std::string& text, const std::string& heading) {
    std::vector<std::string> out;
    const std::vector<std::string> ls = lines_of(text);
    size_t i = 0;
    while (i < ls.size() && ls[i] != heading) ++i;
    for (++i; i < ls.size() && ls[i].rfind("## ", 0) != 0; ++i) {
        if (ls[i] != "```sh") continue;
        std::string block;
        for (++i; i < ls.size() && ls[i] != "```"; ++i) block += (block.empty() ? "" : "\n") + ls[i];
        out.push_back(block);
    }
    return out;
}

}  // namespace

TEST_CASE("docs: README.md is at most 10 KB, the rest lives in docs/") {
    const auto size = fs::file_size(kRoot / "README.md");
    INFO("README.md is " << size << " bytes; move detail into docs/ and link it");
    CHECK(size <= 10000);
}

TEST_CASE("docs: the README's two commands exist, and .ci/run runs exactly its test command") {
    const std::string readme = read_text(kRoot / "README.md");
    const std::vector<std::string> cmds = commands_in_section(readme, "## Two commands (fresh Debian 12 machine)");
    REQUIRE(cmds.size() == 2);
    CHECK(cmds[0] == "scripts/serve.sh");  // builds and serves the app
    CHECK(cmds[1] == "scripts/test.sh");   // runs every test
    for (const std::string& c : cmds) {
        INFO(c);
        const fs::perms p = fs::status(kRoot / c).permissions();
        CHECK(fs::is_regular_file(kRoot / c));
        CHECK((p & fs::perms::owner_exec) != fs::perms::none);
    }
    // The last command of .ci/run (comments and shell settings aside) is "exec <the test command>".
    std::string last;
    for (const std::string& line : lines_of(read_text(kRoot / ".ci/run")))
        if (!line.empty() && line[0] != '#' && line.rfind("set ", 0) != 0) last = line;
    CHECK(last == "exec " + cmds[1]);
}

TEST_CASE("docs: every repository path and relative link in README.md and docs/*.md exists") {
    size_t paths = 0, links = 0;
    for (const fs::path& doc : documents()) {
        const std::string text = read_text(doc);
        const std::string name = fs::relative(doc, kRoot).generic_string();
        // docs/sources.md names files of other repositories (e.g. llama.cpp's docs/backend/CANN.md).
        if (name != "docs/sources.md")
            for (const std::string& p : named_paths(text)) {
                ++paths;
                if (!fs::exists(kRoot / p)) FAIL_CHECK(name << " names `" << p << "`, which does not exist");
            }
        for (const std::string& l : relative_links(text)) {
            ++links;
            if (!fs::exists(doc.parent_path() / l)) FAIL_CHECK(name << " links to " << l << ", which does not exist");
        }
    }
    CHECK(paths > 50);  // the reader finds paths (it does not silently find nothing)
    CHECK(links > 10);
}

TEST_CASE("docs: the README's layout table names folders that exist") {
    const auto rows = table_after(read_text(kRoot / "README.md"), "## Layout");
    REQUIRE(rows.size() >= 8);
    std::set<std::string> named;
    for (const auto& row : rows) {
        REQUIRE(row.size() == 2);
        const std::vector<std::string> ps = named_paths(row[0]);
        CHECK_FALSE(ps.empty());
        for (const std::string& p : ps) {
            INFO("README.md layout table: `" << p << "`");
            CHECK(fs::exists(kRoot / p));
            named.insert(p);
        }
    }
    // and every top-level source folder of the tree has its row
    for (const std::string& folder : kSourceFolders) {
        if (folder == "cmake" || folder == ".ci") continue;  // build plumbing
        INFO("README.md layout table has no row for " << folder << "/");
        CHECK(std::any_of(named.begin(), named.end(), [&](const std::string& p) { return p.rfind(folder + "/", 0) == 0; }));
    }
}

TEST_CASE("docs: docs/architecture.md names files that exist, and each row's functions are in its files") {
    const std::string text = read_text(kRoot / "docs/architecture.md");
    for (const std::string& p : named_paths(text)) {
        INFO("docs/architecture.md names `" << p << "`");
        CHECK(fs::exists(kRoot / p));
    }
    const auto rows = table_after(text, "## Where is the formula for X");
    REQUIRE(rows.size() >= 30);
    size_t names = 0;
    for (const auto& row : rows) {
        REQUIRE(row.size() == 3);
        const std::vector<std::string> files = named_paths(row[1]);
        INFO("row \"" << row[0] << "\"");
        REQUIRE_FALSE(files.empty());
        std::string sources;
        for (const std::string& f : files) sources += read_text(kRoot / f);
        // `name()` is a function: "name(" or "name<" is in one of the files; a component id after
        // "ids" is there in quotes; any other span (a type) is there as written.
        const size_t ids_at = row[2].find("ids ");
        size_t at = 0;
        for (const std::string& span : code_spans(row[2])) {
            at = row[2].find("`" + span + "`", at);
            std::vector<std::string> forms;
            if (span.size() > 2 && span.compare(span.size() - 2, 2, "()") == 0) {
                const std::string fn = span.substr(0, span.size() - 2);
                forms = {fn + "(", fn + "<"};
            } else if (ids_at != std::string::npos && at > ids_at) {
                forms = {"\"" + span + "\""};
            } else {
                forms = {span};
            }
            ++names;
            bool found = false;
            for (const std::string& f : forms) found = found || sources.find(f) != std::string::npos;
            if (!found) FAIL_CHECK("docs/architecture.md, row \"" << row[0] << "\": `" << span << "` is not in " << row[1]);
        }
    }
    CHECK(names > 60);
}

namespace {

// The quoted names ("bf16", "all-linear") in the type column of a field's row in the scenario
// format's table under `section` (e.g. "### `train`").
std::set<std::string> documented_names(const std::string& doc, const std::string& section, const std::string& field) {
    const size_t from = doc.find("\n" + section + "\n");
    REQUIRE(from != std::string::npos);
    const size_t to = doc.find("\n#", from + 1);
    const std::string part = doc.substr(from, to - from);
    const std::string head = "\n| `" + field + "` | ";
    const size_t row = part.find(head);
    INFO(section << ": no row for `" << field << "`");
    REQUIRE(row != std::string::npos);
    const size_t cell = row + head.size();
    const std::string type = part.substr(cell, part.find(" | ", cell) - cell);
    std::set<std::string> out;
    for (size_t at = type.find("`\""); at != std::string::npos; at = type.find("`\"", at + 2))
        out.insert(type.substr(at + 2, type.find("\"`", at + 2) - at - 2));
    return out;
}

template <class E>
std::set<std::string> enum_name_set(E) {
    std::set<std::string> out;
    for (const auto& n : vl::enum_names(E{})) out.insert(n.name);
    return out;
}

}  // namespace

TEST_CASE("docs: the scenario format lists exactly the names the reader accepts for each enum field") {
    const std::string doc = read_text(kRoot / "docs/scenario-format.md");
    CHECK(documented_names(doc, "### Top level", "mode") == enum_name_set(vl::Mode{}));
    std::set<std::string> profiles;
    for (const vl::FrameworkProfile& p : vl::framework_profiles()) profiles.insert(p.id);
    CHECK(documented_names(doc, "### Top level", "profile") == profiles);
    CHECK(documented_names(doc, "### `train`", "precision") == enum_name_set(vl::Precision{}));
    CHECK(documented_names(doc, "### `train`", "optimizer") == enum_name_set(vl::Optimizer{}));
    CHECK(documented_names(doc, "### `train`", "recompute") == enum_name_set(vl::Recompute{}));
    CHECK(documented_names(doc, "### `train`", "compat") == enum_name_set(vl::Compat{}));
    CHECK(documented_names(doc, "### `train`", "activation_formula") == enum_name_set(vl::ActivationFormula{}));
    CHECK(documented_names(doc, "### `train`", "optimizer_state_dtype") == enum_name_set(vl::StateDtype{}));
    CHECK(documented_names(doc, "### `train`", "optimizer_impl") == enum_name_set(vl::OptimizerImpl{}));
    CHECK(documented_names(doc, "### `finetune`", "method") == enum_name_set(vl::FineTuneMethod{}));
    std::set<std::string> targets{"all-linear"};
    for (const auto& n : vl::lora_target_names()) targets.insert(n.name);
    CHECK(documented_names(doc, "### `finetune`", "lora_targets") == targets);
    CHECK(documented_names(doc, "### `infer`", "weights") == enum_name_set(vl::WeightFormat{}));
    CHECK(documented_names(doc, "### `infer`", "kv_dtype") == enum_name_set(vl::KvDtype{}));
    CHECK(documented_names(doc, "### `infer`", "engine") == enum_name_set(vl::Engine{}));
    CHECK(documented_names(doc, "### `infer`", "llamacpp_backend") == enum_name_set(vl::LlamaCppBackend{}));
    CHECK(documented_names(doc, "### `infer`", "mla_cache") == enum_name_set(vl::MlaCache{}));
    CHECK(documented_names(doc, "### `infer`", "autocast") == enum_name_set(vl::InferAutocast{}));
    CHECK(documented_names(doc, "### `parallel`", "schedule") == enum_name_set(vl::PipelineSchedule{}));
    CHECK(documented_names(doc, "### `deepspeed`", "overlap_comm") == enum_name_set(vl::DsOverlap{}));
    CHECK(documented_names(doc, "### `local`", "split_mode") == enum_name_set(vl::SplitMode{}));
    CHECK(documented_names(doc, "## The model", "norm") == enum_name_set(vl::NormKind{}));
    CHECK(documented_names(doc, "## The model", "position") == enum_name_set(vl::PositionKind{}));
    CHECK(documented_names(doc, "## The model", "attention") == enum_name_set(vl::AttentionKind{}));
}
