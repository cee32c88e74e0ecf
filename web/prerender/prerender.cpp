// vramlens_prerender SHELL_HTML OUT_HTML: the page's answer before the wasm arrives. Fills the
// results mirror of shell/index.html (#vl-results) with the default scenario's results, as the app
// itself fills it once it runs: the same scenario (vl::ui::default_scenario via make_app_state), the
// same text (vl::ui::results_text_json, the JSON the app sends the page) and the same markup as
// shell/bridge.js showResults builds (th for the first cell of a row, td for the others). Native
// only; web/CMakeLists.txt runs it when it assembles the site. Exit 1 with a message when the shell
// lacks an element to fill or a file cannot be read or written.
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "ui/app.h"

namespace {

std::string escape(const std::string& s) {
    std::string out;
    for (const char c : s) {
        if (c == '&') out += "&amp;";
        else if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '"') out += "&quot;";
        else out += c;
    }
    return out;
}

// One table row as bridge.js fillRow makes it.
std::string row(const nlohmann::json& cells, bool head) {
    std::string out;
    for (size_t i = 0; i < cells.size(); ++i) {
        const bool th = head || i == 0;
        out += th ? (head ? "<th scope=\"col\">" : "<th scope=\"row\">") : "<td>";
        out += escape(cells[i].get<std::string>());
        out += th ? "</th>" : "</td>";
    }
    return out;
}

// A list box (errors, notes) as bridge.js fillList makes it.
std::string list(const std::string& id, const nlohmann::json& title, const nlohmann::json& items) {
    std::string out = "<div id=\"" + id + "\"" + (items.empty() ? " hidden" : "") + "><h3>" +
                      escape(title.get<std::string>()) + "</h3><ul>";
    for (const auto& t : items) out += "<li>" + escape(t.get<std::string>()) + "</li>";
    return out + "</ul></div>";
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: vramlens_prerender SHELL_HTML OUT_HTML\n";
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
        std::cerr << "vramlens_prerender: cannot read " << argv[1] << "\n";
        return 1;
    }
    std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

    const vl::ui::AppState app = vl::ui::make_app_state();
    const nlohmann::json r = nlohmann::json::parse(vl::ui::results_text_json(app));  // the app's own output

    std::string body;
    for (const auto& cells : r["rows"]) body += "<tr>" + row(cells, false) + "</tr>";
    const std::pair<std::string, std::string> fills[] = {
        {"<h2 id=\"vl-results-title\">Results</h2>",
         "<h2 id=\"vl-results-title\">" + escape(r["title"].get<std::string>()) + "</h2>"},
        {"<p id=\"vl-verdict\" role=\"status\" aria-live=\"polite\" aria-atomic=\"true\" elementtiming=\"answer\"></p>",
         "<p id=\"vl-verdict\" role=\"status\" aria-live=\"polite\" aria-atomic=\"true\" elementtiming=\"answer\">" +
             escape(r["verdict"].get<std::string>()) + "</p>"},
        {"<p class=\"vl-total\" id=\"vl-total\"></p>",
         "<p class=\"vl-total\" id=\"vl-total\">" + escape(r["total"].get<std::string>()) + "</p>"},
        {"<table id=\"vl-table\"><thead><tr></tr></thead><tbody></tbody><tfoot><tr></tr></tfoot></table>",
         std::string("<table id=\"vl-table\"") + (r["rows"].empty() ? " hidden" : "") + "><thead><tr>" +
             row(r["headers"], true) + "</tr></thead><tbody>" + body + "</tbody><tfoot><tr>" +
             row(r["total_row"], false) + "</tr></tfoot></table>"},
        {"<div id=\"vl-errors\" hidden><h3></h3><ul></ul></div>", list("vl-errors", r["errors_title"], r["errors"])},
        {"<div id=\"vl-notes\" hidden><h3></h3><ul></ul></div>", list("vl-notes", r["notes_title"], r["notes"])},
    };
    for (const auto& [empty, filled] : fills) {
        const size_t at = html.find(empty);
        if (at == std::string::npos) {
            std::cerr << "vramlens_prerender: " << argv[1] << " has no empty element " << empty
                      << " to fill (keep shell/index.html's #vl-results as shell/bridge.js expects it)\n";
            return 1;
        }
        html.replace(at, empty.size(), filled);
    }
    std::ofstream out(argv[2], std::ios::binary);
    out << html;
    if (!out.flush()) {
        std::cerr << "vramlens_prerender: cannot write " << argv[2] << "\n";
        return 1;
    }
    return 0;
}
