// wacamp validate: check a campaign file and every CSV row; no log, and no network unless the
// images are to be checked (--check-media).

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <memory>

#include "campaign/recipients.hpp"
#include "cli/commands.hpp"
#include "cli/exit_code.hpp"
#include "cli/output.hpp"
#include "cli/run_common.hpp"
#include "cli/send_causes.hpp"
#include "runner/plan.hpp"
#include "runner/screened_rows.hpp"
#include "util/clock.hpp"

namespace cli {

namespace {

struct ValidateOptions {
    std::string campaign;
    bool check_media = false;
    bool offline = false;  // a template campaign checked without the template list
};

// Returns what the ledger at `path` says of the rows to send: how many it would skip or hold
// now, by cause (a run asks again as it sends).
std::string ledger_line(const results::CauseCounts& held, const std::string& path) {
    const std::int64_t total = total_of(held);
    if (total == 0) {
        return fmt::format("the account's ledger ({}) holds none of them back\n", path);
    }
    return fmt::format("of those, the account's ledger ({}) would hold back {} now: {}\n", path, total,
                       cause_list(held));
}

int validate(const ValidateOptions& opts) {
    const std::string& path = opts.campaign;
    Output text(LogFormat::text);
    auto c = load_campaign_or_report(path, campaign::SecretsPolicy::optional, text);
    if (!c) {
        return k_exit_bad_input;
    }
    if (auto stopped = resolve_template_or_report(*c, opts.offline, text)) {
        return *stopped;
    }
    const auto& redactor = text.redactor();
    auto stream = campaign::RecipientStream::open(*c);
    if (!stream) {
        const auto& problem = stream.error().message;
        text.error(problem, k_exit_bad_input, fmt::format("{}\nwacamp: error: {} is not usable\n", problem, path));
        return k_exit_bad_input;
    }
    std::optional<runner::MediaReport> media;
    if (opts.check_media) {
        media = check_media_or_report(*c, *stream, text);
        if (!media) {
            return k_exit_bad_input;
        }
        stream = campaign::RecipientStream::open(*c, {}, {.media = &media->verdicts});
        if (!stream) {
            const auto& problem = stream.error().message;
            text.error(problem, k_exit_bad_input, fmt::format("{}\nwacamp: error: {} is not usable\n", problem, path));
            return k_exit_bad_input;
        }
    }
    auto book = read_account_or_report(*c, text);
    if (!book) {
        return k_exit_bad_input;
    }
    util::SystemClock clock;
    runner::ScreenedRows screened(*stream, book->get(), runner::campaign_key(c->name, clock.wall_now()), clock);
    std::int64_t rows = 0, ok = 0, invalid = 0, duplicates = 0;
    results::CauseCounts held;                  // rows the ledger would skip or hold, by cause
    std::optional<runner::ZoneSequence> zones;  // the plan's: each row to send's zone, in order
    if (c->schedule.window && c->schedule.window->per_recipient) {
        zones.emplace(*c->schedule.window);
    }
    campaign::Recipient r;
    runner::Screening screening;
    std::string out;
    auto more = screened.next(r, screening);
    for (; more && *more; more = screened.next(r, screening)) {
        ++rows;
        switch (r.verdict) {
        case campaign::Verdict::ok:
            ++ok;
            if (screening.cause != results::Cause::none) {
                ++held[screening.cause];
            } else if (zones && !r.zone.name.empty()) {
                if (auto added = zones->add(r.zone.name); !added) {
                    text.error(added.error().message, k_exit_bad_input);
                    return k_exit_bad_input;
                }
            }
            break;
        case campaign::Verdict::invalid:
            ++invalid;
            out += fmt::format("{}:{}: row {}: {}\n", c->recipients.file, r.line, r.row, r.reason);
            break;
        case campaign::Verdict::duplicate:
            ++duplicates;
            out += fmt::format("{}:{}: row {}: skipped: {}\n", c->recipients.file, r.line, r.row, r.reason);
            break;
        }
        if (out.size() > 1 << 16) {
            print_out(redactor, out);
            out.clear();
        }
    }
    if (!more) {
        print_out(redactor, out);
        const auto& problem = more.error().message;
        text.error(problem, k_exit_bad_input,
                   fmt::format("{}\nwacamp: error: {} could not be checked to the end\n", problem, path));
        return k_exit_bad_input;
    }
    out += fmt::format("{}: {} rows: {} to send, {} invalid, {} duplicate{}\n", path, rows, ok, invalid, duplicates,
                       duplicates == 1 ? "" : "s");
    if (auto refused = campaign::too_many_invalid(*c, stream->survey())) {
        print_out(redactor, out);
        text.error(*refused, k_exit_bad_input,
                   fmt::format("{}\nwacamp: error: {} would be refused: too many invalid rows\n", *refused, path));
        return k_exit_bad_input;
    }
    if (ok == 0) {
        out += "no row can be sent\n";
    } else {
        if (*book != nullptr) {
            out += ledger_line(held, (*book)->path());
        }
        auto plan = runner::make_plan(*c, {.messages = ok - total_of(held),
                                           .now = clock.wall_now(),
                                           .book = book->get(),
                                           .zones = zones && zones->size() == ok - total_of(held) ? &*zones : nullptr});
        if (!plan) {
            print_out(redactor, out);
            text.error(plan.error().message, k_exit_bad_input);
            return k_exit_bad_input;
        }
        out += runner::describe(*plan);
    }
    print_out(redactor, out);
    return ok > 0 ? k_exit_done : k_exit_bad_input;
}

}  // namespace

Action add_validate(CLI::App& app) {
    auto opts = std::make_shared<ValidateOptions>();
    auto* sub = app.add_subcommand(
        "validate",
        "Check a campaign file and every CSV row; no log, no network (unless --check-media, or a template campaign's "
        "one read of the template list)");
    sub->add_option("CAMPAIGN", opts->campaign, "Campaign file (YAML)")->required();
    sub->add_flag("--check-media", opts->check_media,
                  "Also fetch each distinct image URL (or template header media link) once (HEAD) and check "
                  "WhatsApp takes it: a JPEG or PNG of at most 5 MB, an MP4 or 3GPP video of at most 16 MB, a "
                  "document of at most 100 MB");
    sub->add_flag("--offline", opts->offline, "Do not read the template list (a template campaign's check is skipped)");
    return [opts] { return validate(*opts); };
}

}  // namespace cli
