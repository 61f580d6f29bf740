#include "cli/run_common.hpp"

#include <fmt/format.h>

#include "cli/exit_code.hpp"
#include "cli/output.hpp"
#include "results/log_reader.hpp"
#include "util/duration.hpp"
#include "util/env.hpp"

namespace cli {

std::optional<campaign::Campaign> load_campaign_or_report(const std::string& path, campaign::SecretsPolicy secrets,
                                                          util::Redactor& redactor) {
    util::ProcessEnvironment env;
    auto loaded = campaign::load_campaign(path, env, {.secrets = secrets});
    if (!loaded) {
        fmt::print(stderr, "{}\n", redactor.apply(loaded.error().message));
        fmt::print(stderr, "wacamp: error: {} is not usable; nothing was sent\n", path);
        return std::nullopt;
    }
    redactor.add(loaded->service.api_key);
    redactor.add(loaded->service.access_token);
    for (const auto& [name, value] : loaded->service.headers) {
        redactor.add(value);  // extra headers may carry tokens too
    }
    return std::move(*loaded);
}

void print_send_summary(const campaign::Campaign& c, const runner::SendReport& r, const util::Redactor& redactor) {
    using results::Status;
    std::string out;
    if (r.already_complete) {
        out += fmt::format("{}: already complete, nothing to send.\n", c.name);
    } else {
        std::string how = r.reason == queue::StopReason::completed ? "completed"
                          : r.reason == queue::StopReason::limit   ? "stopped at --limit"
                                                                   : "STOPPED";
        out += fmt::format("{}: {} in {} ({} sent this run)\n", c.name, how, util::format_duration(r.duration),
                           r.sent_this_run);
        if (!r.message.empty() && r.reason != queue::StopReason::completed) {
            out += fmt::format("  why: {} ({})\n", r.message, queue::to_string(r.reason));
        }
    }
    const auto& n = r.counts;
    out += fmt::format("  sent {} · failed {} · unknown {} · invalid {} · skipped {}\n", n[Status::sent],
                       n[Status::failed], n[Status::unknown], n[Status::invalid], n[Status::skipped]);
    if (r.cleanup.ran) {
        out += fmt::format("  contacts deleted: {} in {} batch{}", r.cleanup.ids_deleted, r.cleanup.batches_deleted,
                           r.cleanup.batches_deleted == 1 ? "" : "es");
        out += r.cleanup.batches_failed > 0
                   ? fmt::format(", {} batch(es) failed: {}\n", r.cleanup.batches_failed, r.cleanup.error)
                   : "\n";
    }
    out += fmt::format("  result log: {}\n", r.results_path);
    if (r.held_unknown > 0) {
        out += fmt::format("  {} recipient(s) may or may not have received the message (unknown); "
                           "to send them again: wacamp resume {} --resend-unknown\n",
                           r.held_unknown, r.results_path);
    }
    if (r.held_rejected > 0) {
        out += fmt::format("  {} recipient(s) were rejected by the service earlier; to try them again: "
                           "wacamp resume {} --retry-failed\n",
                           r.held_rejected, r.results_path);
    }
    if (r.reason != queue::StopReason::completed || n[Status::failed] > 0) {
        out += fmt::format("  to continue: wacamp resume {}\n", r.results_path);
    }
    print_out(redactor, out);
}

int exit_code_for(const runner::SendReport& r) {
    if (r.declined) {
        return k_exit_stopped;
    }
    if (r.reason != queue::StopReason::completed && r.reason != queue::StopReason::limit) {
        return k_exit_stopped;
    }
    if (r.counts[results::Status::failed] > 0 || r.counts[results::Status::unknown] > 0 ||
        r.cleanup.batches_failed > 0) {
        return k_exit_failures;
    }
    return k_exit_done;
}

util::Result<std::string> campaign_file_of_log(const std::string& path) {
    auto reader = results::LogReader::open(path);
    if (!reader) {
        return reader.error();
    }
    results::Record record;
    auto got = reader->next(record);
    if (!got) {
        return got.error();
    }
    const auto* header = *got ? std::get_if<results::CampaignHeader>(&record) : nullptr;
    if (header == nullptr) {
        return util::fail(path + ": not a wacamp result log (its first line is not a campaign record)");
    }
    if (header->mode != results::Mode::send) {
        return util::fail(path + ": is the log of a dry run; there is nothing to resume");
    }
    return header->campaign_file;
}

} // namespace cli
