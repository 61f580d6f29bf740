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
#include <optional>
#include <vector>

#include "campaign/campaign.hpp"
#include "campaign/campaign_file.hpp"
#include "cli/commands.hpp"
#include "cli/exit_code.hpp"
#include "cli/output.hpp"
#include "report/carried_columns.hpp"
#include "report/csv.hpp"
#include "report/format.hpp"
#include "report/html.hpp"
#include "report/open_log.hpp"
#include "report/summary.hpp"
#include "report/xlsx.hpp"
#include "runner/shown_zone.hpp"
#include "util/env.hpp"

namespace cli {

namespace {

struct ReportOptions {
    std::string results;
    std::string format = "text";
    std::string output;
    std::vector<std::string> columns;  // --columns: the recipient list's columns to carry
    bool bom = false;
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
        const auto target = prepare(path);
        if (target == Target::special) {
            m_stream.open(path, std::ios::binary | std::ios::trunc);
            return static_cast<bool>(m_stream);
        }
        if (target == Target::failed) {
            return false;
        }
        m_stream.open(m_temp, std::ios::binary | std::ios::trunc);
        return static_cast<bool>(m_stream);
    }

    // Makes the temporary file that a writer of its own (libxlsxwriter) writes by name, for a
    // regular file (or a new one) only; false (errno set) when it cannot be made or `path` is
    // something else (EINVAL).
    bool open_by_name(const std::string& path) {
        const auto target = prepare(path);
        if (target == Target::special) {
            errno = EINVAL;
            return false;
        }
        m_by_name = true;
        return target == Target::temp;
    }

    // The file being written, until commit().
    const std::string& temp_name() const { return m_temp; }
    std::ostream& stream() { return m_stream; }

    // Flushes and puts the file in place; false (errno set) when that fails.
    bool commit() {
        if (m_by_name) {
            if (::rename(m_temp.c_str(), m_path.c_str()) != 0) {
                return false;
            }
            m_temp.clear();
            return true;
        }
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
    enum class Target { temp, special, failed };

    // Resolves `path` (a symlink stays one: the file it names is what is replaced) and, unless it
    // is an existing file that is not a regular one, makes the temporary file beside it.
    Target prepare(const std::string& path) {
        namespace fs = std::filesystem;
        std::error_code ec;
        m_path = fs::is_symlink(fs::symlink_status(path, ec)) ? fs::weakly_canonical(path, ec).string() : path;
        if (m_path.empty()) {
            m_path = path;
        }
        const auto status = fs::status(m_path, ec);
        if (fs::exists(status) && !fs::is_regular_file(status)) {
            return Target::special;
        }
        const fs::path folder = fs::path(m_path).parent_path();
        std::string name = ((folder.empty() ? fs::path(".") : folder) / ".wacamp-report-XXXXXX").string();
        const int fd = ::mkstemp(name.data());
        if (fd < 0) {
            return Target::failed;
        }
        // The permissions a file created in place would have had (mkstemp makes it 0600).
        const mode_t mask = ::umask(0);
        ::umask(mask);
        ::fchmod(fd, 0666 & ~mask);
        ::close(fd);
        m_temp = name;
        return Target::temp;
    }

    std::string m_path;
    std::string m_temp;  // the file being written, until renamed
    std::ofstream m_stream;
    bool m_by_name = false;  // open_by_name(): no stream of ours
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

// The campaign the log at `path` names, loaded as far as a report needs it (its secrets only when
// they are set): its deletion step, its list's delimiter, its secrets to mask. Fails as loading
// the log's header or the campaign file does.
util::Result<campaign::Campaign> campaign_of_log(const std::string& path) {
    TRY_ASSIGN(auto opened, report::open_log(path));
    const util::ProcessEnvironment env{};
    return campaign::load_campaign(opened.header.campaign_file, env, {campaign::SecretsPolicy::optional});
}

// The first line of a message that may hold many (a campaign file's problems).
std::string first_line(const std::string& message) {
    return message.substr(0, message.find('\n'));
}

// The log's first pass for a per-recipient report, its warnings said on stderr (the CSV and the
// workbook have no place for them); nothing, having said why, when the log cannot be read.
std::optional<report::CsvIndex> index_or_report(const ReportOptions& opts, Output& diagnostics) {
    auto index = report::index_log(opts.results);
    if (!index) {
        diagnostics.error(index.error().message, k_exit_bad_input);
        return std::nullopt;
    }
    for (const auto& w : index->warnings) {
        diagnostics.warning(w);
    }
    const auto shown = static_cast<std::int64_t>(index->warnings.size());
    if (index->warning_count > shown) {
        diagnostics.warning(fmt::format("{} more warnings not shown", index->warning_count - shown));
    }
    return std::move(*index);
}

// --columns: the list's columns read for the rows of `index`, from the list its latest run read,
// with the campaign's delimiter and secrets when its file loads (else a comma, saying so). Null
// without --columns; nothing, having said why (exit 2), when the list cannot be used.
std::optional<std::unique_ptr<report::CarriedColumns>> carried_or_report(const ReportOptions& opts,
                                                                         const report::CsvIndex& index,
                                                                         const util::Result<campaign::Campaign>& c,
                                                                         Output& diagnostics) {
    if (opts.columns.empty()) {
        return std::unique_ptr<report::CarriedColumns>();
    }
    report::CarriedOptions options;
    options.names = opts.columns;
    if (c) {
        options.delimiter = c->recipients.delimiter;
        options.secrets = campaign::redactor_for(*c);
    } else {
        diagnostics.warning(fmt::format("the campaign file cannot be loaded ({}): the list is read as comma-separated",
                                        first_line(c.error().message)));
    }
    const auto& header = index.state.latest_header;
    auto carried = report::CarriedColumns::read(header.recipients_file, header.recipients_sha256, options);
    if (!carried) {
        diagnostics.error(carried.error().message, k_exit_bad_input);
        return std::nullopt;
    }
    return std::make_unique<report::CarriedColumns>(std::move(*carried));
}

int emit_csv(const ReportOptions& opts, Output& diagnostics) {
    auto index = index_or_report(opts, diagnostics);
    if (!index) {
        return k_exit_bad_input;
    }
    const auto c = opts.columns.empty() ? util::Result<campaign::Campaign>(util::fail("not needed"))
                                        : campaign_of_log(opts.results);
    const auto carried = carried_or_report(opts, *index, c, diagnostics);
    if (!carried) {
        return k_exit_bad_input;
    }
    OutputFile file;
    if (!opts.output.empty() && !file.open(opts.output)) {
        return cannot_write(diagnostics, opts.output);
    }
    std::ostream& out = opts.output.empty() ? std::cout : file.stream();
    auto written = report::write_csv(*index, out, {opts.bom ? report::Bom::yes : report::Bom::no, carried->get()});
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

int emit_xlsx(const ReportOptions& opts, Output& diagnostics) {
    auto index = index_or_report(opts, diagnostics);
    if (!index) {
        return k_exit_bad_input;
    }
    const auto c = campaign_of_log(opts.results);
    const auto carried = carried_or_report(opts, *index, c, diagnostics);
    if (!carried) {
        return k_exit_bad_input;
    }
    auto summary = report::summarize(opts.results, {}, c ? &*c : nullptr);
    if (!summary) {
        diagnostics.error(summary.error().message, k_exit_bad_input);
        return k_exit_bad_input;
    }
    OutputFile file;
    if (!file.open_by_name(opts.output)) {
        return cannot_write(diagnostics, opts.output);
    }
    auto written = report::write_xlsx(*index, *summary, carried->get(), file.temp_name());
    if (!written) {
        diagnostics.error(written.error().message, k_exit_bad_input);
        return k_exit_bad_input;
    }
    if (!file.commit()) {
        return cannot_write(diagnostics, opts.output);
    }
    return k_exit_done;
}

// What the flags cannot mean together; empty when they can.
std::string misuse(const ReportOptions& opts) {
    if (opts.bom && opts.format != "csv") {
        return "--bom applies to --format csv only";
    }
    if (!opts.columns.empty() && opts.format != "csv" && opts.format != "xlsx") {
        return "--columns applies to --format csv and xlsx only";
    }
    if (opts.format == "xlsx" && opts.output.empty()) {
        return "--format xlsx writes a workbook: give it a file with --output FILE";
    }
    return {};
}

int run_report(const ReportOptions& opts) {
    Output out(LogFormat::text);  // a result log holds no secrets; masked all the same
    if (is_the_log(opts)) {
        out.error(fmt::format("--output {} is the result log itself; choose another file", opts.output),
                  k_exit_bad_input);
        return k_exit_bad_input;
    }
    if (const auto wrong = misuse(opts); !wrong.empty()) {
        out.error(wrong, k_exit_bad_input);
        return k_exit_bad_input;
    }
    if (opts.format == "csv") {
        return emit_csv(opts, out);
    }
    if (opts.format == "xlsx") {
        return emit_xlsx(opts, out);
    }
    // The campaign, for what the log cannot say alone (the rows its deletion step cannot name);
    // a report of a log whose campaign file is gone goes on without it.
    const auto c = campaign_of_log(opts.results);
    auto summary = report::summarize(opts.results, {}, c ? &*c : nullptr);
    if (!summary) {
        out.error(summary.error().message, k_exit_bad_input);
        return k_exit_bad_input;
    }
    // Times on the campaign's window's clock; the machine's when the log's campaign file is gone.
    summary->zone = c ? runner::shown_zone(*c) : util::TimeZone::local(util::ProcessEnvironment());
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
    sub->add_option("--format", opts->format,
                    "text, csv (a row per recipient), json, html or xlsx (a workbook: a row per recipient, and the "
                    "summary)")
        ->check(CLI::IsMember({"text", "csv", "json", "html", "xlsx"}));
    sub->add_option("--output", opts->output, "Write to FILE instead of stdout (required with xlsx)");
    sub->add_option("--columns", opts->columns,
                    "csv, xlsx: the recipient list's own columns to add at the end, COL,… (the list must be the "
                    "one the log's rows are of)")
        ->delimiter(',');
    sub->add_flag("--bom", opts->bom, "csv: start with UTF-8's byte-order mark (for Excel)");
    return [opts] { return run_report(*opts); };
}

}  // namespace cli
