// wacamp report: summaries and exports of a result log.

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
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

// --output, written so that a report that fails half-way (a full disk, a log that cannot be
// read back) never leaves a partial file, nor destroys the report the file held before: a
// regular file (or a new one) is written beside it under a temporary name and renamed over it
// once complete. Anything else (a FIFO, /dev/stdout) is written in place.
class OutputFile {
public:
    // Opens the file to write; false (errno set) when it cannot be.
    bool open(const std::string& path) {
        namespace fs = std::filesystem;
        std::error_code ec;
        // A symlink stays one: the file it names is what is replaced.
        m_path = fs::is_symlink(fs::symlink_status(path, ec)) ? fs::weakly_canonical(path, ec).string() : path;
        if (m_path.empty()) {
            m_path = path;
        }
        const auto status = fs::status(m_path, ec);
        if (fs::exists(status) && !fs::is_regular_file(status)) {
            m_stream.open(path, std::ios::binary | std::ios::trunc);
            return static_cast<bool>(m_stream);
        }
        const fs::path folder = fs::path(m_path).parent_path();
        std::string name = ((folder.empty() ? fs::path(".") : folder) / ".wacamp-report-XXXXXX").string();
        const int fd = ::mkstemp(name.data());
        if (fd < 0) {
            return false;
        }
        // The permissions a file created in place would have had (mkstemp makes it 0600).
        const mode_t mask = ::umask(0);
        ::umask(mask);
        ::fchmod(fd, 0666 & ~mask);
        ::close(fd);
        m_temp = name;
        m_stream.open(name, std::ios::binary | std::ios::trunc);
        return static_cast<bool>(m_stream);
    }

    std::ostream& stream() { return m_stream; }

    // Flushes and puts the file in place; false (errno set) when that fails.
    bool commit() {
        if (!m_stream.flush()) {
            return false;
        }
        m_stream.close();
        if (m_temp.empty()) {
            return static_cast<bool>(m_stream);
        }
        if (!m_stream || ::rename(m_temp.c_str(), m_path.c_str()) != 0) {
            return false;
        }
        m_temp.clear();
        return true;
    }

    OutputFile() = default;
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    ~OutputFile() {
        if (!m_temp.empty()) {
            const int saved = errno;
            ::unlink(m_temp.c_str());
            errno = saved;
        }
    }

private:
    std::string m_path;
    std::string m_temp;  // the file being written, until renamed
    std::ofstream m_stream;
};

// Writes `text` to --output, or to stdout without it.
int emit(const ReportOptions& opts, const std::string& text, Output& out) {
    if (opts.output.empty()) {
        return print_out(out.redactor(), text) ? k_exit_done : cannot_write(out, "standard output");
    }
    OutputFile file;
    if (!file.open(opts.output)) {
        return cannot_write(out, opts.output);
    }
    file.stream() << text;
    if (!file.commit()) {
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
    OutputFile file;
    if (!opts.output.empty() && !file.open(opts.output)) {
        return cannot_write(diagnostics, opts.output);
    }
    std::ostream& out = opts.output.empty() ? std::cout : file.stream();
    auto written = report::write_csv(*index, out);
    if (!written) {
        if (out) {
            // The log, not the output (which is not left half-written).
            diagnostics.error(written.error().message, k_exit_bad_input);
            return k_exit_bad_input;
        }
        return cannot_write(diagnostics, opts.output.empty() ? "standard output" : opts.output);
    }
    if (!opts.output.empty() && !file.commit()) {
        return cannot_write(diagnostics, opts.output);
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
