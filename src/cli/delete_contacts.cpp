// wacamp delete-contacts: run or finish a campaign's contact-deletion step from its log.

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "cli/commands.hpp"
#include "cli/exit_code.hpp"
#include "cli/output.hpp"
#include "cli/run_common.hpp"
#include "cli/signals.hpp"
#include "results/log_writer.hpp"
#include "results/run_lock.hpp"
#include "runner/cleanup.hpp"
#include "service/curl_transport.hpp"

namespace cli {

namespace {

int delete_contacts(const std::string& path) {
    util::Redactor redactor;
    auto campaign_file = campaign_file_of_log(path);
    if (!campaign_file) {
        print_error(redactor, campaign_file.error().message);
        return k_exit_bad_input;
    }
    auto c = load_campaign_or_report(*campaign_file, campaign::SecretsPolicy::required, redactor);
    if (!c) {
        return k_exit_bad_input;
    }
    if (!c->cleanup.delete_contacts) {
        print_error(redactor, fmt::format("{} has no deletion step (cleanup.delete_contacts is not true)", c->file));
        return k_exit_bad_input;
    }
    auto lock = results::RunLock::acquire(path);
    if (!lock) {
        print_error(redactor, lock.error().message);
        return k_exit_bad_input;
    }
    auto log = results::LogWriter::open(path);
    if (!log) {
        print_error(redactor, log.error().message);
        return k_exit_bad_input;
    }
    const auto& stops = install_stop_handlers();
    service::CurlTransport transport({.ca_file = c->service.ca_file, .max_connections = 2});
    auto summary = runner::delete_contacts(*c, *log, transport, stops);
    std::string out = fmt::format("{}: {} contact(s) deleted in {} batch(es)", c->name, summary.ids_deleted,
                                  summary.batches_deleted);
    if (summary.interrupted) {
        out += fmt::format("; interrupted\n  result log: {}\n  to finish: wacamp delete-contacts {}\n", path, path);
        print_out(redactor, out);
        return k_exit_stopped;
    }
    out += summary.batches_failed > 0 ? fmt::format("; {} batch(es) failed: {}\n", summary.batches_failed, summary.error)
                                      : "; nothing left to delete\n";
    out += fmt::format("  result log: {}\n", path);
    if (summary.batches_failed > 0) {
        out += fmt::format("  to finish: wacamp delete-contacts {}\n", path);
    }
    print_out(redactor, out);
    if (summary.batches_failed == 0) {
        return k_exit_done;
    }
    return summary.error.find("HTTP 401") != std::string::npos || summary.error.find("HTTP 403") != std::string::npos
               ? k_exit_stopped
               : k_exit_failures;
}

} // namespace

Action add_delete_contacts(CLI::App& app) {
    auto opts = std::make_shared<std::string>();
    auto* sub = app.add_subcommand("delete-contacts", "Run or finish a campaign's contact-deletion step from its log");
    sub->add_option("RESULTS", *opts, "Result log (JSON Lines)")->required();
    return [opts] { return delete_contacts(*opts); };
}

} // namespace cli
