#include "queue/set_aside.hpp"

#include <algorithm>
#include <cstring>
#include <map>

namespace queue {

namespace {

template <typename T>
void put_int(std::string& out, T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out.append(bytes, sizeof(T));
}

void put_text(std::string& out, std::string_view text) {
    put_int(out, static_cast<std::uint32_t>(text.size()));
    out.append(text);
}

template <typename T>
util::Result<void> pop_int(util::ByteSpillQueue& in, T& value) {
    return in.pop(&value, sizeof(T));
}

util::Result<void> pop_text(util::ByteSpillQueue& in, std::string& text) {
    std::uint32_t size = 0;
    TRY(pop_int(in, size));
    text.resize(size);
    return in.pop(text.data(), size);
}

}  // namespace

util::Result<void> push_job(util::ByteSpillQueue& queue, const Job& job) {
    std::string record;  // pushed whole: a failed push leaves no part of a job behind
    put_int(record, job.row);
    put_int(record, static_cast<std::int32_t>(job.zone));
    put_int(record, job.note);
    put_int(record, static_cast<std::int32_t>(job.requests));
    put_int(record, static_cast<std::int32_t>(job.attempts));
    put_int(record, static_cast<std::int32_t>(job.pair_rate_answers));
    put_int(record, static_cast<std::uint8_t>(job.template_send));
    put_int(record, static_cast<std::uint8_t>(job.marketing_hold));
    put_int(record, job.price);
    put_text(record, job.wa_id);
    put_text(record, job.user_name);
    put_text(record, job.body);
    return queue.push(record.data(), record.size());
}

util::Result<void> pop_job(util::ByteSpillQueue& queue, Job& out) {
    std::int32_t zone = 0;
    std::int32_t requests = 0;
    std::int32_t attempts = 0;
    std::int32_t pair_rate = 0;
    std::uint8_t template_send = 0;
    std::uint8_t hold = 0;
    TRY(pop_int(queue, out.row));
    TRY(pop_int(queue, zone));
    TRY(pop_int(queue, out.note));
    TRY(pop_int(queue, requests));
    TRY(pop_int(queue, attempts));
    TRY(pop_int(queue, pair_rate));
    TRY(pop_int(queue, template_send));
    TRY(pop_int(queue, hold));
    TRY(pop_int(queue, out.price));
    TRY(pop_text(queue, out.wa_id));
    TRY(pop_text(queue, out.user_name));
    TRY(pop_text(queue, out.body));
    out.zone = zone;
    out.requests = requests;
    out.attempts = attempts;
    out.pair_rate_answers = pair_rate;
    out.template_send = template_send != 0;
    out.marketing_hold = static_cast<service::MarketingHold>(hold);
    return {};
}

std::int64_t SetAside::Lane::first_row() const {
    if (!head) {
        return early.begin()->first;
    }
    return early.empty() ? head->row : std::min(head->row, early.begin()->first);
}

util::Result<void> SetAside::Lane::put(const Job& job) {
    if (queued > 0 && job.row <= last_row) {
        early.insert_or_assign(job.row, job);
        return {};
    }
    last_row = job.row;
    if (queued++ == 0) {
        head = job;
        return {};
    }
    return push_job(rest, job);
}

util::Result<void> SetAside::Lane::take(Job& out) {
    if (!early.empty() && (!head || early.begin()->first < head->row)) {
        out = std::move(early.begin()->second);
        early.erase(early.begin());
        return {};
    }
    out = std::move(*head);
    head.reset();
    if (--queued == 0) {
        return {};
    }
    Job next;
    TRY(pop_job(rest, next));
    head = std::move(next);
    return {};
}

util::Result<void> SetAside::put(const Job& job, const Admission::Later& answer) {
    Lane& lane = m_lanes[job.zone];
    TRY(lane.put(job));
    lane.answer = answer;
    ++m_size;
    return {};
}

util::Result<bool> SetAside::take_due(WallTime now, Job& out) {
    Lane* first = nullptr;
    for (auto& [zone, lane] : m_lanes) {
        const bool due = lane.rows() > 0 && lane.answer.until && *lane.answer.until <= now;
        if (due && (first == nullptr || lane.first_row() < first->first_row())) {
            first = &lane;
        }
    }
    if (first == nullptr) {
        return false;
    }
    TRY(first->take(out));
    --m_size;
    return true;
}

std::optional<WallTime> SetAside::next_opening() const {
    std::optional<WallTime> next;
    for (const auto& [zone, lane] : m_lanes) {
        if (lane.rows() > 0 && lane.answer.until) {
            next = next ? std::min(*next, *lane.answer.until) : *lane.answer.until;
        }
    }
    return next;
}

std::vector<ZoneWait> SetAside::waits() const {
    std::vector<ZoneWait> out;
    for (const auto& [zone, lane] : m_lanes) {
        if (lane.rows() > 0) {
            out.push_back({lane.answer.reason, lane.answer.until, lane.rows(), zone, {}});
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const ZoneWait& a, const ZoneWait& b) {
        return a.opens.value_or(WallTime::max()) < b.opens.value_or(WallTime::max());
    });
    return out;
}

}  // namespace queue
