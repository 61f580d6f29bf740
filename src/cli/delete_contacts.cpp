// wacamp delete-contacts: run or finish a campaign's contact-deletion step from its log.

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/exit_code.hpp"
#include "cli/output.hpp"
#include "cli/run_common.hpp"
#include "cli/send_summary.hpp"
#include "cli/signals.hpp"
#include "results/log_writer.hpp"
#include "results/run_lock.hpp"
#include "runner/cleanup.hpp"
#include "service/curl_transport.hpp"
#include "util/clock.hpp"
#include "util/text.hpp"

namespace cli {

namespace {

struct DeleteOptions {
    std::string results;
    LogOptions log;
};

int exit_code_of(const runner::CleanupSummary& summary) {
    if (summary.interrupted) {
        return k_exit_stopped;
    }
    if (summary.batches_failed == 0) {
        return k_exit_done;
    }
    // Refused credentials (401, 403, Meta's auth codes), a failed certificate or a wrong URL: the batch
    // cause, never the words of the answer, which the service writes.
    return summary.refused ? k_exit_stopped : k_exit_failures;
}

void print_summary(const campaign::Campaign& c, const runner::CleanupSummary& summary, const std::string& path,
                   Output& out) {
    const std::string headline =
        fmt::format("{}: {} contact(s) deleted in {} batch(es)", c.name, summary.ids_deleted, summary.batches_deleted);
    const bool unfinished = summary.interrupted || summary.batches_failed > 0;
    std::string text = headline;
    if (summary.interrupted) {
        // An unwritable log stops it too; say why.
        text += summary.log_error.empty() ? "; interrupted\n" : fmt::format("; stopped: {}\n", summary.log_error);
    } else {
        text += summary.batches_failed > 0
                    ? fmt::format("; {} batch(es) failed: {}\n", summary.batches_failed, util::printable(summary.error))
                    : "; nothing left to delete\n";
    }
    text += fmt::format("  result log: {}\n", path);
    if (unfinished) {
        text += fmt::format("  to finish: wacamp delete-contacts {}\n", path);
    }
    const int code = exit_code_of(summary);
    nlohmann::ordered_json fields = {
        {"message", headline},
        {"campaign", c.name},
        {"ids_deleted", summary.ids_deleted},
        {"batches_deleted", summary.batches_deleted},
        {"batches_failed", summary.batches_failed},
        {"error", !summary.log_error.empty() ? nlohmann::ordered_json(summary.log_error)
                  : summary.error.empty()    ? nlohmann::ordered_json()
                                             : nlohmann::ordered_json(summary.error)},
        {"interrupted", summary.interrupted},
        {"results", path},
        {"finish_command",
         unfinished ? nlohmann::ordered_json("wacamp delete-contacts " + path) : nlohmann::ordered_json()},
        {"exit_code", code}};
    out.result(level_for(code), "summary", text, fields);
    // A script that keeps only stderr still learns why (the summary is on stdout).
    if (summary.interrupted) {
        out.error("the deletion step was interrupted; to finish it: wacamp delete-contacts " + path,
                  static_cast<ExitCode>(code));
    } else if (code != k_exit_done) {
        out.error(fmt::format("{} deletion batch(es) failed: {}; to finish: wacamp delete-contacts {}",
                              summary.batches_failed, util::printable(summary.error), path),
                  static_cast<ExitCode>(code));
    }
}

int delete_contacts(const std::string& path, Output& out) {
    auto c = load_campaign_of_log(path, out);
    if (!c) {
        return k_exit_bad_input;
    }
    if (!c->cleanup.delete_contacts) {
        out.error(fmt::format("{} has no deletion step (cleanup.delete_contacts is not true)", c->file),
                  k_exit_bad_input);
        return k_exit_bad_input;
    }
    auto lock = results::RunLock::acquire(path);
    if (!lock) {
        out.error(lock.error().message, k_exit_bad_input);
        return k_exit_bad_input;
    }
    auto log = results::LogWriter::open(path);
    if (!log) {
        out.error(log.error().message, k_exit_bad_input);
        return k_exit_bad_input;
    }
    const auto& stops = install_stop_handlers();
    service::CurlTransport transport(
        {.ca_file = c->service.ca_file, .max_connections = 2, .max_host_connections = 0, .http = c->service.http});
    util::SystemClock clock;
    auto summary = runner::delete_contacts(*c, *log, {.transport = transport, .clock = clock, .stop_requests = stops});
    print_summary(*c, summary, path, out);
    return exit_code_of(summary);
}

}  // namespace

Action add_delete_contacts(CLI::App& app) {
    auto opts = std::make_shared<DeleteOptions>();
    auto* sub = app.add_subcommand("delete-contacts", "Run or finish a campaign's contact-deletion step from its log");
    sub->add_option("RESULTS", opts->results, "Result log (JSON Lines)")->required();
    add_log_options(*sub, opts->log);
    return [opts] {
        return with_output(opts->log, {opts->results},
                           [&](Output& out) { return delete_contacts(opts->results, out); });
    };
}

}  // namespace cli
