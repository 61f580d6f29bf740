// wacamp report: summaries and exports of a result log.

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/exit_code.hpp"
#include "cli/output.hpp"
#include "report/csv.hpp"
#include "report/format.hpp"
#include "report/html.hpp"
#include "report/summary.hpp"

namespace cli {

namespace {

struct ReportOptions {
    std::string results;
    std::string format = "text";
    std::string output;
};

// Writing over the log would destroy the campaign's memory.
bool is_the_log(const ReportOptions& opts) {
    std::error_code ec;
    return !opts.output.empty() && std::filesystem::equivalent(opts.output, opts.results, ec);
}

// Says that `file` cannot be written, with the OS reason; returns the exit code.
int cannot_write(Output& out, const std::string& file) {
    out.error(fmt::format("cannot write {}: {}", file, std::strerror(errno)), k_exit_bad_input);
    return k_exit_bad_input;
}

// Writes `text` to --output, or to stdout without it.
int emit(const ReportOptions& opts, const std::string& text, Output& out) {
    if (opts.output.empty()) {
        return print_out(out.redactor(), text) ? k_exit_done : cannot_write(out, "standard output");
    }
    std::ofstream file(opts.output, std::ios::binary | std::ios::trunc);
    if (!file) {
        return cannot_write(out, opts.output);
    }
    file << text;
    if (!file.flush()) {
        return cannot_write(out, opts.output);
    }
    return k_exit_done;
}

int emit_csv(const ReportOptions& opts, Output& diagnostics) {
    auto index = report::index_log(opts.results);
    if (!index) {
        diagnostics.error(index.error().message, k_exit_bad_input);
        return k_exit_bad_input;
    }
    // The CSV has no place for warnings: they go to stderr.
    for (const auto& w : index->warnings) {
        diagnostics.warning(w);
    }
    const auto shown = static_cast<std::int64_t>(index->warnings.size());
    if (index->warning_count > shown) {
        diagnostics.warning(fmt::format("{} more warnings not shown", index->warning_count - shown));
    }
    std::ofstream file;
    if (!opts.output.empty()) {
        file.open(opts.output, std::ios::binary | std::ios::trunc);
        if (!file) {
            return cannot_write(diagnostics, opts.output);
        }
    }
    std::ostream& out = opts.output.empty() ? std::cout : file;
    auto written = report::write_csv(*index, out);
    if (!written) {
        if (out) {
            diagnostics.error(written.error().message, k_exit_bad_input);  // the log, not the output
            return k_exit_bad_input;
        }
        return cannot_write(diagnostics, opts.output.empty() ? "standard output" : opts.output);
    }
    return k_exit_done;
}

int run_report(const ReportOptions& opts) {
    Output out(LogFormat::text);  // a result log holds no secrets; masked all the same
    if (is_the_log(opts)) {
        out.error(fmt::format("--output {} is the result log itself; choose another file", opts.output),
                  k_exit_bad_input);
        return k_exit_bad_input;
    }
    if (opts.format == "csv") {
        return emit_csv(opts, out);
    }
    auto summary = report::summarize(opts.results);
    if (!summary) {
        out.error(summary.error().message, k_exit_bad_input);
        return k_exit_bad_input;
    }
    if (opts.format == "html") {
        auto page = report::format_html(*summary);
        if (!page) {
            out.error(page.error().message, k_exit_bad_input);
            return k_exit_bad_input;
        }
        return emit(opts, *page, out);
    }
    const bool json = opts.format == "json";
    return emit(opts, json ? report::format_json(*summary) : report::format_text(*summary), out);
}

}  // namespace

Action add_report(CLI::App& app) {
    auto opts = std::make_shared<ReportOptions>();
    auto* sub = app.add_subcommand("report", "Summarise a result log");
    sub->add_option("RESULTS", opts->results, "Result log (JSON Lines)")->required();
    sub->add_option("--format", opts->format, "text, csv (a row per recipient), json or html")
        ->check(CLI::IsMember({"text", "csv", "json", "html"}));
    sub->add_option("--output", opts->output, "Write to FILE instead of stdout");
    return [opts] { return run_report(*opts); };
}

}  // namespace cli
