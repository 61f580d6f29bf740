// The steps before sending: prepare, confirm and wait, open the log.

#include <fmt/format.h>
#include <algorithm>
#include <filesystem>

#include "queue/deadline.hpp"
#include "runner/account_keeper.hpp"
#include "runner/budget.hpp"
#include "runner/campaign_header.hpp"
#include "runner/decide.hpp"
#include "runner/listed_rows.hpp"
#include "runner/log_start.hpp"
#include "runner/media_preflight.hpp"
#include "runner/preflight.hpp"
#include "runner/send_steps.hpp"
#include "util/text.hpp"
#include "util/time.hpp"

namespace runner {

namespace {

constexpr util::Millis k_wait_slice{100};  // how soon a stop request ends a wait

// Replays the log at `path` for this run: joined with its recipient list, counting the sends
// of the last 24 hours.
util::Result<results::LogState> replay_existing(const SendRun& run, const std::string& path) {
    results::ReplayOptions options = run.parts.replay;
    options.now = run.parts.clock.wall_now();
    return replay_with_list(path, run.campaign, options);
}

// Refuses to continue a log written for other inputs, unless told to.
util::Result<void> check_inputs(const results::LogState& state, const results::CampaignHeader& now,
                                const std::string& path, const SendOptions& options) {
    const auto& h = state.latest_header;
    if (h.mode != results::Mode::send) {
        return util::fail(fmt::format("{} is a dry-run log; a real run needs its own log", path));
    }
    std::vector<std::string> changed;
    if (h.campaign_sha256 != now.campaign_sha256) {
        changed.push_back("the campaign file " + h.campaign_file);
    }
    if (h.recipients_sha256 != now.recipients_sha256) {
        changed.push_back("the recipient list " + h.recipients_file);
    }
    if (changed.empty() || options.changed_inputs == ChangedInputs::accept) {
        return {};
    }
    return util::fail(
        fmt::format("{} changed since {} was started; run again with --force to continue "
                    "with the changed input (recipients already sent are never sent again)",
                    fmt::join(changed, " and "), path));
}

// Replays the existing log at the run's path, if there is one with content. An empty file
// where a campaign ran before is refused: wacamp never leaves one (a new log appears at its
// path with its first line), but a log rotated away does (logrotate's create mode), and
// starting afresh on it would send the whole campaign again.
util::Result<void> read_existing_log(SendRun& run) {
    const std::string& path = run.report.results_path;
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size == 0 && run.lock->earlier_run()) {
        return util::fail(
            fmt::format("{} is empty, but a campaign already ran with this log (its lock file {} is there): if the log "
                        "was moved away (log rotation), put it back; to start the campaign afresh, remove both files",
                        path, run.lock->path()));
    }
    if (ec || size == 0) {
        return {};
    }
    TRY_ASSIGN(run.state, replay_existing(run, path));
    for (const auto& w : run.state->warnings) {
        run.parts.ui.warning(w);
    }
    return check_inputs(*run.state, run.header, path, run.options);
}

// Waits for schedule.start_at through the clock, in slices; false when a stop request came.
bool wait_for_start(const SendRun& run) {
    const auto& start_at = run.campaign.schedule.start_at;
    util::Clock& clock = run.parts.clock;
    if (!start_at || *start_at <= clock.wall_now()) {
        return true;
    }
    while (clock.wall_now() < *start_at) {
        if (run.parts.stop_requests.load() > 0) {
            return false;
        }
        run.parts.ui.waiting_to_start(*start_at, clock.wall_now());
        clock.sleep_for(std::min(k_wait_slice, std::chrono::ceil<util::Millis>(*start_at - clock.wall_now())));
    }
    return true;
}

// Whether the campaign is too late for this run's first send, at the start time or now when
// that has passed (queue::Deadline; never with --late-ok). Then the run neither asks nor waits:
// the send step stops at its first turn (too_late), its log started, so that a resume finds it.
bool too_late_to_start(const SendRun& run) {
    if (run.options.late_ok == LateOk::yes) {
        return false;
    }
    const auto now = run.parts.clock.wall_now();
    const auto& start_at = run.campaign.schedule.start_at;
    return queue::Deadline(run.campaign.schedule).too_late(start_at ? std::max(now, *start_at) : now).has_value();
}

// Opens the account's ledger (through SendParts::open_book), takes suppression.files in and
// prunes sends older than any window a campaign may count in (rate.per_recipient.per is at
// most 366 days).
util::Result<void> open_account(SendRun& run) {
    if (!run.parts.open_book) {
        return {};
    }
    // The ledger is as durable as the log: synced at each commit with --sync every; else a
    // power loss may lose its last commits, which the next run folds back in from the log.
    const auto sync =
        run.options.durability == results::Durability::every_record ? account::Sync::full : account::Sync::normal;
    TRY_ASSIGN(run.book, run.parts.open_book(sync));
    if (!run.book) {
        return {};
    }
    // Before suppression.files give the account a history of its own.
    TRY_ASSIGN(const auto stranger, unknown_account_warning(run.book->ledger(), run.book->account(), run.book->path()));
    if (!stranger.empty()) {
        run.parts.ui.warning(stranger);
    }
    const auto now = run.parts.clock.wall_now();
    TRY_ASSIGN(const std::int64_t listed,
               run.book->take_lists(now, [&](const std::string& warning) { run.parts.ui.warning(warning); }));
    if (listed > 0) {
        run.parts.ui.notice(fmt::format("suppression.files: {} numbers on the account's suppression list", listed));
    }
    TRY(run.book->ledger().prune(now - std::chrono::days(367)));
    return {};
}

// Folds into the ledger what of the campaign's log it missed (a crash between the two).
util::Result<void> fold_into_ledger(SendRun& run) {
    if (!run.book) {
        return {};
    }
    run.campaign_key =
        campaign_key(run.campaign.name, run.state ? run.state->header.started_at : run.header.started_at);
    TRY_ASSIGN(const std::int64_t folded,
               fold_log(*run.book, run.log->path(), run.log->size(), run.campaign_key, run.parts.clock.wall_now()));
    if (folded > 0) {
        run.parts.ui.notice(fmt::format("ledger {}: brought up to date with {} result{} of the log", run.book->path(),
                                        folded, folded == 1 ? "" : "s"));
    }
    return {};
}

// Opens the recipient list for sending: in one pass without the survey and the duplicates when
// the log settles every row (they would not be read), else in full.
util::Result<void> open_stream(SendRun& run) {
    const campaign::RowChecks checks{.media = run.refused_media()};
    TRY_ASSIGN(run.stream, run.settled ? campaign::RecipientStream::open_unsurveyed(run.campaign, checks)
                                       : campaign::RecipientStream::open(run.campaign, {}, checks));
    return {};
}

// Checks the media (images, or a template's header media) of the rows to send, and opens the
// stream again with the verdicts; warnings and a summary go to the UI. Next::stop when a stop
// request came first.
util::Result<Next> check_images(SendRun& run) {
    service::HttpTransport& transport =
        run.parts.media_transport != nullptr ? *run.parts.media_transport : run.parts.transport;
    TRY_ASSIGN(auto checked, check_media(run.campaign, *run.stream, run.existing(), run.options,
                                         {.transport = transport,
                                          .stop_requests = &run.parts.stop_requests,
                                          .now = run.parts.clock.wall_now()}));
    if (checked.stopped) {
        run.report.reason = queue::StopReason::interrupted;
        run.report.message = "interrupted while checking the images";
        return Next::stop;
    }
    for (const auto& warning : checked.warnings) {
        run.parts.ui.warning(warning);
    }
    if (checked.verdicts.refused() > 0) {
        run.parts.ui.warning(media_summary(checked));
    } else {
        run.parts.ui.notice(media_summary(checked));
    }
    run.media = std::move(checked.verdicts);
    TRY(open_stream(run));
    return Next::go_on;
}

// The category the campaign's earlier sends were made at (the log's), when the template list
// gives the template another now: Meta re-categorised it, during the last run or since. Empty
// otherwise.
std::string category_changed(const SendRun& run) {
    if (!run.state || run.campaign.message.type != campaign::MessageType::template_message) {
        return {};
    }
    std::string before = util::ascii_upper(run.state->sent_category);
    const std::string now = util::ascii_upper(run.campaign.message.templated.category);
    return !before.empty() && !now.empty() && before != now ? before : std::string();
}

// Whether a run whose template changed category since its earlier sends goes on at the new
// price (SPEC "A template that changes under a campaign"): a person says so when one can answer;
// else when message.category names the new one (another is refused before this) or a budget
// holds the spend; else the run stops (template_changed) before anything is sent, saying what
// to set.
Next go_on_after_change(SendRun& run, const Preview& preview) {
    const auto& t = run.campaign.message.templated;
    const std::string now = util::ascii_upper(t.category);
    run.parts.ui.notice(
        fmt::format("template \"{}\" was {} when this campaign last sent and is {} in the template list now: Meta "
                    "re-categorised it, and its price with it. {}",
                    util::printable(t.name), util::printable(preview.category_was), util::printable(now),
                    campaign::describe(preview.cost)));
    if (run.parts.ui.can_ask()) {
        if (run.parts.ui.confirm(preview)) {
            return Next::go_on;
        }
        run.report.declined = true;
        return Next::stop;
    }
    if (t.pinned_category == now || run.campaign.pricing.budget) {
        return Next::go_on;
    }
    run.report.reason = queue::StopReason::template_changed;
    run.report.message = fmt::format(
        "template \"{}\" is {} now, not {} as when this campaign last sent; nothing was sent. To send the rest at "
        "{} prices (about {} {}), set message.category: {} or a budget (pricing.budget, or --budget)",
        util::printable(t.name), util::printable(now), util::printable(preview.category_was), util::printable(now),
        campaign::money_text(preview.cost.total), preview.cost.currency, util::printable(now));
    return Next::stop;
}

// Asks for confirmation with a preview, or only estimates the work; Next::stop when declined.
// With a budget, the preview is made either way: a campaign whose spend so far and estimate
// pass it is refused before the question (an Error: exit 2). So is it when the template's
// category changed since the campaign's earlier sends (go_on_after_change).
util::Result<Next> confirm(SendRun& run) {
    std::string category_was = category_changed(run);
    if (!run.parts.ui.wants_confirmation() && !run.campaign.pricing.budget && category_was.empty()) {
        const JobEstimate estimate = estimate_jobs(run.campaign, run.existing(), run.options);
        run.expected_jobs = estimate.jobs;
        run.list_rows = estimate.rows;
        return Next::go_on;
    }
    TRY_ASSIGN(Preview preview, make_preview(run));
    preview.category_was = std::move(category_was);
    const SpentSoFar spent{preview.spent, preview.spent_unpriced, preview.spent_unknown};
    if (auto refused = over_budget(run.campaign, spent, preview.cost)) {
        return util::fail(std::move(*refused));
    }
    run.spent_micros = to_micros(preview.spent);
    run.expected_jobs = preview.to_send;
    run.list_rows = preview.rows;
    if (!preview.category_was.empty() && preview.to_send > 0) {
        return go_on_after_change(run, preview);
    }
    if (preview.to_send > 0 && run.parts.ui.wants_confirmation() && !run.parts.ui.confirm(preview)) {
        run.report.declined = true;
        return Next::stop;
    }
    return Next::go_on;
}

// Refuses a list with too many invalid rows before anything is sent. A campaign whose log
// exists was let through before (or began before the rule): it is continued as long as its
// list is the one it began with, not stopped halfway.
util::Result<void> check_invalid_share(const SendRun& run) {
    const bool same_list = run.state && run.state->latest_header.recipients_sha256 == run.header.recipients_sha256;
    if (same_list) {
        return {};
    }
    if (auto refused = campaign::too_many_invalid(run.campaign, run.stream->survey())) {
        return util::fail(std::move(*refused));
    }
    return {};
}

}  // namespace

util::Result<void> prepare(SendRun& run) {
    const auto& c = run.campaign;
    if (c.message.type == campaign::MessageType::template_message && c.message.templated.id.empty()) {
        // Never a send-template without its templateId: the template list names it (check_template).
        return util::fail(
            fmt::format("{}: message.template \"{}\" was not found in the template list; nothing "
                        "was sent",
                        c.file, c.message.templated.name));
    }
    if (c.schedule.window && c.schedule.window->per_recipient) {
        run.zone_windows.emplace(*c.schedule.window);
    } else if (c.schedule.window) {
        TRY_ASSIGN(run.window, queue::SendWindow::make(*c.schedule.window));
        run.parts.ui.time_zone(run.window->zone());
    }
    TRY_ASSIGN(run.paused, campaign::PausedRegions::of(c));
    TRY_ASSIGN(run.prices, campaign::RowPrices::create(c));
    TRY_ASSIGN(run.header, make_campaign_header(c, results::Mode::send, run.parts.clock.wall_now()));
    TRY_ASSIGN(run.lock, results::RunLock::acquire(run.report.results_path));
    TRY(read_existing_log(run));
    // A log of this list that settles every row (a rerun or resume of a finished campaign)
    // spares the list's full reading: nothing of it would be sent or recorded.
    if (run.state && run.state->latest_header.recipients_sha256 == run.header.recipients_sha256) {
        auto settled = every_row_settled(*run.state);
        if (!settled) {
            return util::fail(
                fmt::format("{}: the log's replay on disk: {}", run.report.results_path, settled.error().message));
        }
        run.settled = *settled;
    }
    TRY(open_stream(run));
    TRY(check_invalid_share(run));
    return open_account(run);
}

util::Result<Next> confirm_and_wait(SendRun& run) {
    if (too_late_to_start(run)) {
        return Next::go_on;  // nothing will be sent: no question, no wait, no template or image check
    }
    if (run.campaign.template_check) {
        auto checked = check_template(run.campaign, run.parts.transport);
        if (!checked) {
            return util::fail(run.secrets.apply(checked.error().message));
        }
        if (checked->stop) {
            run.report.reason = *checked->stop;
            run.report.message = run.secrets.apply(checked->message);
            return Next::stop;
        }
    }
    if (run.campaign.message.check_media && media_kind(run.campaign)) {
        auto checked = check_images(run);
        if (!checked || *checked == Next::stop) {
            return checked;
        }
    }
    auto confirmed = confirm(run);
    if (!confirmed || *confirmed == Next::stop) {
        return confirmed;
    }
    if (!wait_for_start(run)) {
        run.report.reason = queue::StopReason::interrupted;
        run.report.message = "interrupted while waiting for the start time";
        return Next::stop;
    }
    return Next::go_on;
}

util::Result<void> open_log(SendRun& run) {
    const std::string& path = run.report.results_path;
    run.header.started_at = run.parts.clock.wall_now();
    if (!run.state) {
        // Never an empty log: a kill before its first record would leave the campaign unreachable.
        TRY(start_log(run.lock->log_path(), results::to_line(run.header), *run.lock));
    }
    TRY_ASSIGN(run.log, results::LogWriter::open(path, {.durability = run.options.durability,
                                                        .sync_interval = std::chrono::milliseconds(1000),
                                                        .clock = nullptr}));
    if (run.state && (run.state->latest_header.campaign_sha256 != run.header.campaign_sha256 ||
                      run.state->latest_header.recipients_sha256 != run.header.recipients_sha256)) {
        TRY(run.log->append(results::to_line(run.header)));
        // Changed inputs (--force): replay again so that rows are read against the new
        // recipient list; what was sent is still known by number.
        TRY_ASSIGN(run.state, replay_existing(run, path));
    } else if (run.state) {
        // Each run that adds to the log begins its part with a `campaign` record: the report
        // counts the runs, and their sending time apart from the gaps between them.
        run.log->begin_with(results::to_line(run.header));
    }
    if (run.state) {
        run.parts.ui.log_read(*run.state);
        run.parts.ui.notice(fmt::format("continuing from {} ({} recorded)", path, run.state->counts.total()));
    }
    return fold_into_ledger(run);
}

void estimate_after_change(SendRun& run, const std::string& category) {
    campaign::Campaign changed = run.campaign;
    changed.message.templated.category = category;
    auto state = replay_existing(run, run.report.results_path);
    if (!state) {
        run.report.message += "; the estimate for what is left could not be made: " + state.error().message;
        return;
    }
    run.state = std::move(*state);
    auto preview = make_preview(run, &changed);
    if (!preview) {
        run.report.message += "; the estimate for what is left could not be made: " + preview.error().message;
        return;
    }
    const auto& cost = preview->cost;
    run.report.message += fmt::format("; what is left is now about {} {} for {} {} message(s)",
                                      campaign::money_text(cost.total), cost.currency, cost.messages, cost.category);
    run.parts.ui.notice(campaign::describe(cost));
}

}  // namespace runner
