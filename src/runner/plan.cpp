#include "runner/plan.hpp"

#include <fmt/format.h>
#include <atomic>
#include <cmath>
#include <memory>
#include <vector>

#include "account/ledger.hpp"
#include "queue/dispatcher.hpp"
#include "queue/rate_limiter.hpp"
#include "queue/retry_policy.hpp"
#include "queue/send_window.hpp"
#include "runner/account_book.hpp"
#include "runner/admission_steps.hpp"
#include "util/spill_queue.hpp"
#include "util/text.hpp"
#include "util/zone.hpp"

namespace runner {

namespace {

using namespace std::chrono;

// Simulated time past the plan's start after which the plan gives up: "more than a year".
constexpr auto k_horizon = days(400);

// A clock that moves only when told: the dispatcher's waits move it.
class SimClock final : public util::Clock {
public:
    explicit SimClock(util::TimePoint start) : m_wall(start) {}
    steady_clock::time_point steady_now() const override { return m_steady; }
    util::TimePoint wall_now() const override { return m_wall; }
    void sleep_for(util::Millis d) override { advance(d); }
    void advance(steady_clock::duration d) {
        m_steady += d;
        m_wall += duration_cast<util::TimePoint::duration>(d);
    }

private:
    steady_clock::time_point m_steady{hours(1)};
    util::TimePoint m_wall;
};

// What the dispatcher reports, as the plan keeps it: when each request leaves, per hour. A
// wait for an admission step (the window, the daily cap) is skipped to its end, which is what
// waiting for it would reach: the steps answer for a given instant.
class PlanObserver final : public queue::DispatchObserver {
public:
    PlanObserver(Plan& plan, const SimClock& clock) : m_plan(plan), m_clock(clock) {}

    util::Result<void> on_attempt(const queue::Job&) override {
        const auto t = m_clock.wall_now();
        if (!m_plan.first) {
            m_plan.first = t;
        }
        m_plan.last = t;
        ++m_plan.planned;
        const auto hour = static_cast<std::size_t>(duration_cast<hours>(t - *m_plan.first).count());
        if (hour < k_plan_hours) {
            if (m_plan.per_hour.size() <= hour) {
                m_plan.per_hour.resize(hour + 1, 0);
            }
            ++m_plan.per_hour[hour];
        }
        paused_until.reset();
        return {};
    }
    util::Result<void> on_result(const queue::Job&, queue::JobStatus, const service::Outcome&, milliseconds) override {
        return {};
    }
    void on_progress(const queue::Progress& p) override {
        if (!p.pause_reason.empty()) {
            paused_until = p.paused_until;
        }
    }
    void on_pause(const queue::Progress& p) override { paused_until = p.paused_until; }

    std::optional<util::TimePoint> paused_until;  // the wall time an admission step waits for

private:
    Plan& m_plan;
    const SimClock& m_clock;
};

// A transport that never touches the network: every request succeeds at once. A poll with
// nothing in flight is the dispatcher's wait: the clock moves by it, or to the end of the
// admission step's wait; past the horizon the dispatch is told to stop.
class SimTransport final : public service::HttpTransport {
public:
    SimTransport(SimClock& clock, PlanObserver& observer, util::TimePoint horizon, std::atomic<int>& stops)
        : m_clock(clock), m_observer(observer), m_horizon(horizon), m_stops(stops) {}

    void start(std::uint64_t id, service::HttpRequest) override { m_pending.push_back(id); }

    std::vector<service::Completion> poll(microseconds max_wait, service::Wait wait) override {
        if (m_pending.empty() || wait == service::Wait::whole) {
            wait_for(max_wait);
        }
        std::vector<service::Completion> done;
        done.reserve(m_pending.size());
        for (const auto id : m_pending) {
            // A 200 without a body is a success to classify_response (no code, no success:
            // false) and costs nothing to read: a million of them are the plan's hot path.
            service::HttpResponse answer;
            answer.status = 200;
            done.push_back({id, std::move(answer), milliseconds(0)});
        }
        m_pending.clear();
        return done;
    }

    std::size_t in_flight() const override { return m_pending.size(); }

private:
    // With nothing in flight nothing can happen before the admission step that holds the queue
    // lets it go: the wait is skipped to then (the end of a pause, the pace's next slot).
    void wait_for(microseconds max_wait) {
        const auto now = m_clock.wall_now();
        auto target = now + duration_cast<util::TimePoint::duration>(max_wait);
        auto& until = m_observer.paused_until;
        if (m_pending.empty()) {
            if (until && *until > target) {
                target = *until;
            }
            if (limiter != nullptr) {
                const auto steady_now = m_clock.steady_now();
                target = std::max(target, now + duration_cast<util::TimePoint::duration>(
                                                    limiter->next_allowed(steady_now) - steady_now));
            }
        }
        m_clock.advance(std::min(target, m_horizon) - now);
        until.reset();
        if (m_clock.wall_now() >= m_horizon) {
            m_stops.store(2);
        }
    }

public:
    const queue::RateLimiter* limiter = nullptr;  // the pace the dispatch keeps

private:
    SimClock& m_clock;
    PlanObserver& m_observer;
    util::TimePoint m_horizon;
    std::atomic<int>& m_stops;
    std::vector<std::uint64_t> m_pending;
};

// Jobs without a body: the plan asks only when each would leave; with `zones`, each in its
// row's zone.
class CountedJobs final : public queue::JobSource {
public:
    CountedJobs(std::int64_t count, ZoneSequence* zones) : m_left(count), m_zones(zones) {}
    util::Result<bool> next(queue::Job& out) override {
        if (m_left <= 0) {
            return false;
        }
        out.row = ++m_row;
        --m_left;
        if (m_zones != nullptr) {
            TRY_ASSIGN(const bool more, m_zones->next(out.zone));
            if (!more) {
                return util::fail("the plan's zones ended before its rows");
            }
        }
        return true;
    }

private:
    std::int64_t m_left;
    std::int64_t m_row = 0;
    ZoneSequence* m_zones;
};

// Whether the account's ledger (read only) would take one more number at `now` under a per_day
// of `cap`: whether it messaged fewer than `cap` numbers in the trailing 24 h. A previewed
// reservation of one number it has never seen; nothing written.
util::Result<bool> fewer_than(AccountBook& book, long long cap, util::TimePoint now) {
    const account::ReservationRequest request{
        .sends = {{.wa_id = "plan", .campaign = "plan", .row = 0, .at = std::nullopt}},
        .limits = {.per_recipient = std::nullopt, .per_day = cap},
        .now = now,
        .apply = account::Apply::preview,
        .marketing_holds = account::MarketingHolds::ignored};
    TRY_ASSIGN(const auto answers, book.ledger().reserve(request));
    return !answers.empty() && answers.front().granted();
}

// The numbers the account messaged in the trailing 24 h at `now` by its ledger, as far as the
// plan needs them: exact within [`least`, `most`], else the nearer bound. A search by halves,
// one previewed number a question: memory does not grow with per_day or the rows, and the
// questions (about log2(`most` - `least`)) grow only with the rows.
util::Result<long long> day_numbers(AccountBook& book, long long least, long long most, util::TimePoint now) {
    while (least < most) {
        const long long mid = least + (most - least) / 2;
        TRY_ASSIGN(const bool at_most_mid, fewer_than(book, mid + 1, now));
        if (at_most_mid) {
            most = mid;
        } else {
            least = mid + 1;
        }
    }
    return least;
}

// The calendar day of `t` in `zone`.
sys_days local_day(util::TimePoint t, const util::TimeZone* zone) {
    return floor<days>(t + (zone != nullptr ? zone->offset_at(t) : seconds(0)));
}

std::string per_day_source(const campaign::Campaign& c) {
    return c.account.messaging_limit && c.rate.per_day == c.account.messaging_limit ? "account.messaging_limit"
                                                                                    : "rate.per_day";
}

// Runs the dispatcher over `plan.messages` rows from `start`, filling the times of `plan`.
void simulate(const campaign::Campaign& c, Plan& plan, util::TimePoint start, StepSources sources,
              ZoneSequence* zones) {
    SimClock clock(start);
    PlanObserver observer(plan, clock);
    std::atomic<int> stops{0};
    SimTransport transport(clock, observer, start + k_horizon, stops);
    queue::RetryPolicy retry(c.retry);
    AdmissionSteps steps = make_steps(c, std::move(sources));
    const queue::DispatchParts parts{.transport = &transport,  // no service: SimTransport reads no request
                                     .clock = &clock,
                                     .limiter = &steps.limiter,
                                     .retry = &retry,
                                     .steps = steps.before_pace(),
                                     .observer = &observer,
                                     .stop_requests = &stops};
    transport.limiter = &steps.limiter;
    CountedJobs jobs(plan.messages, zones);
    // Every answer comes at once: the in-flight window never binds, so `auto` (which sizes it
    // from latencies, per job) is spared for a fixed one.
    queue::DispatchSettings settings = dispatch_settings(c);
    settings.concurrency = settings.concurrency.value_or(settings.max_concurrency);
    const auto result = queue::dispatch(jobs, settings, parts);
    if (plan.planned == 0) {
        plan.kind = Plan::Kind::never;
    }
    if (result.reason == queue::StopReason::too_late) {
        plan.why = result.message;
    } else if (result.reason == queue::StopReason::interrupted) {
        plan.why = "the rest would take more than a year";
    }
}

// `t` to the minute (a plan's precision) on `zone`'s clock beside UTC.
std::string plan_time(util::TimePoint t, const util::TimeZone& zone) {
    return util::format_moment(floor<minutes>(t), zone);
}

// The pace and caps of `plan`: "at 10/s, 10,000 a day (account.messaging_limit), in mon-fri 09:00-17:00 Asia/Kolkata".
std::string limits_text(const Plan& plan) {
    std::string text = std::isinf(plan.per_second) ? "at an unlimited rate" : fmt::format("at {:g}/s", plan.per_second);
    if (plan.per_day) {
        text += fmt::format(", {} a day ({})", util::group_digits(*plan.per_day), plan.per_day_source);
    }
    if (!plan.window.empty()) {
        text += fmt::format(", in {}", plan.window);
    }
    return text;
}

}  // namespace

// ---- ZoneSequence ---------------------------------------------------------------------------

struct ZoneSequence::Impl {
    static constexpr std::size_t k_buffer = 32 * 1024;  // zones kept in memory before the file

    explicit Impl(const campaign::Window& window) : windows(window) {}

    queue::ZoneWindows windows;
    util::SpillQueue<std::uint16_t> zones{k_buffer};  // tzdata has fewer than 65,536 zones
    std::int64_t size = 0;
};

ZoneSequence::ZoneSequence(const campaign::Window& window) : m_impl(std::make_unique<Impl>(window)) {}
ZoneSequence::ZoneSequence(ZoneSequence&&) noexcept = default;
ZoneSequence& ZoneSequence::operator=(ZoneSequence&&) noexcept = default;
ZoneSequence::~ZoneSequence() = default;

util::Result<void> ZoneSequence::add(const std::string& zone) {
    TRY_ASSIGN(const int index, m_impl->windows.zone(zone));
    TRY(m_impl->zones.push(static_cast<std::uint16_t>(index)));
    ++m_impl->size;
    return {};
}

std::int64_t ZoneSequence::size() const {
    return m_impl->size;
}

queue::ZoneWindows& ZoneSequence::windows() {
    return m_impl->windows;
}

util::Result<bool> ZoneSequence::next(int& zone) {
    std::uint16_t index = 0;
    TRY_ASSIGN(const bool found, m_impl->zones.pop(index));
    zone = index;
    return found;
}

util::Result<Plan> make_plan(const campaign::Campaign& c, const PlanInputs& in) {
    Plan plan;
    plan.messages = in.messages;
    if (in.book != nullptr) {
        plan.messaged_day = in.messaged_day;
        plan.messaged_week = in.messaged_week;
    }
    plan.per_second = c.rate.per_second;
    plan.per_day = c.rate.per_day;
    if (plan.per_day) {
        plan.per_day_source = per_day_source(c);
    }
    std::optional<queue::SendWindow> window;
    ZoneSequence* zones = c.schedule.window && c.schedule.window->per_recipient ? in.zones : nullptr;
    if (zones != nullptr) {
        plan.window = in.zones->windows().describe();  // first and last stay in UTC
    } else if (c.schedule.window) {
        campaign::Window planned = *c.schedule.window;
        if (planned.per_recipient) {
            // Not yet the run's own step: the rows' zones are not planned, the fallback's clock is.
            planned.timezone = planned.fallback_timezone;
            planned.per_recipient = false;
            plan.note = "the window is planned on schedule.window.fallback_timezone's clock, not each row's own";
        }
        TRY_ASSIGN(window, queue::SendWindow::make(planned));
        plan.window = window->describe();
        plan.zone = window->zone().name();
    }
    if (c.rate.unlimited() && !plan.per_day && !window && zones == nullptr) {
        plan.kind = Plan::Kind::unbounded;
        return plan;
    }
    if (in.messages == 0) {
        return plan;
    }
    const auto start = c.schedule.start_at ? std::max(in.now, *c.schedule.start_at) : in.now;
    if (window && !window->next_open(start)) {
        plan.kind = Plan::Kind::never;
        plan.why = "the send window never opens (it has no days)";
        return plan;
    }
    std::optional<queue::DailyCap> cap;
    if (plan.per_day) {
        cap.emplace(*plan.per_day);
        if (in.book != nullptr) {
            // Numbers the account messaged in the trailing 24 h are in its day's count already:
            // messaging them again costs no room (per_day counts numbers), as the run's ledger
            // counts them. The plan sends them first.
            const long long free = std::clamp<long long>(in.messaged_day, 0, in.messages);
            const long long paid = in.messages - free;
            // Fewer than per_day - paid leaves room for every row: how many fewer is not asked.
            const long long least = std::max<long long>(0, *plan.per_day - paid);
            TRY_ASSIGN(const long long used, day_numbers(*in.book, least, *plan.per_day, in.now));
            const long long paid_room = std::min<long long>(*plan.per_day - used, paid);
            plan.room_today = free + paid_room;
            // With room for all, how much more is not known.
            plan.room_for_all = *plan.room_today == in.messages && paid < *plan.per_day;
            // The account's sends in the trailing 24 h count from now: the plan never finishes
            // sooner than the run could (docs/decisions/sending.md).
            cap->record(in.now, plan.room_for_all ? 0 : *plan.per_day - paid_room);
            cap->admit_free(free);
        }
    }
    queue::Admitter* window_step = window ? static_cast<queue::Admitter*>(&*window) : nullptr;
    if (zones != nullptr) {
        window_step = &zones->windows();
    }
    simulate(c, plan, start, {.window = window_step, .ledger = nullptr, .cap = std::move(cap)}, zones);
    if (plan.first && plan.last) {
        const util::TimeZone* zone = window ? &window->zone() : nullptr;
        plan.days = (local_day(*plan.last, zone) - local_day(*plan.first, zone)).count() + 1;
    }
    return plan;
}

std::string_view to_string(Plan::Kind kind) {
    switch (kind) {
    case Plan::Kind::timed: return "timed";
    case Plan::Kind::unbounded: return "unbounded";
    case Plan::Kind::never: return "never";
    }
    return "timed";
}

results::PlanSummary summary_of(const Plan& plan) {
    return {.kind = std::string(to_string(plan.kind)),
            .messages = plan.messages,
            .first = plan.first,
            .last = plan.last,
            .days = plan.days,
            .per_hour = plan.per_hour};
}

// How many of the plan's numbers the account messaged lately; empty without its ledger.
std::string recent_text(const Plan& plan) {
    if (!plan.messaged_day || !plan.messaged_week) {
        return {};
    }
    return fmt::format(
        "  the account already messaged {} of these numbers in the last 24 h, {} in the last 7 days (its ledger){}\n",
        util::group_digits(*plan.messaged_day), util::group_digits(*plan.messaged_week),
        plan.per_day && *plan.messaged_day > 0 ? "; those of the last 24 h cost no new room of per_day" : "");
}

std::string describe(const Plan& plan, const util::TimeZone& shown) {
    const std::string n = util::group_digits(plan.messages);
    const char* s = plan.messages == 1 ? "" : "s";
    if (plan.kind == Plan::Kind::unbounded) {
        return fmt::format("plan: {} message{} as fast as the service answers; no finish time\n", n, s) +
               recent_text(plan);
    }
    if (plan.messages == 0) {
        return "plan: nothing to send\n";
    }
    if (plan.kind == Plan::Kind::never) {
        return fmt::format("plan: {} message{}, never sent: {}\n", n, s, plan.why);
    }
    std::string text =
        fmt::format("plan: {} message{} from {} to {} ({} day{}) {}\n", n, s, plan_time(*plan.first, shown),
                    plan_time(*plan.last, shown), plan.days, plan.days == 1 ? "" : "s", limits_text(plan));
    if (plan.room_today && plan.room_for_all) {
        text +=
            fmt::format("  the account's room now: enough for all of them, of {} in the trailing 24 h (its ledger)\n",
                        util::group_digits(*plan.per_day));
    } else if (plan.room_today) {
        text += fmt::format("  the account's room now: {} of {} in the trailing 24 h (its ledger)\n",
                            util::group_digits(*plan.room_today), util::group_digits(*plan.per_day));
    }
    text += recent_text(plan);
    if (plan.larger_than_a_day()) {
        text += fmt::format("  larger than a day of per_day ({}): it spans {} days\n",
                            util::group_digits(*plan.per_day), plan.days);
    }
    if (!plan.note.empty()) {
        text += fmt::format("  {}\n", plan.note);
    }
    if (plan.planned < plan.messages) {
        text += fmt::format("  only {} of them would go out: {}\n", util::group_digits(plan.planned), plan.why);
    }
    return text;
}

}  // namespace runner
