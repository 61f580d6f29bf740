#include "queue/set_aside.hpp"

#include <algorithm>
#include <cstring>
#include <map>

#include "util/temp_file.hpp"

namespace queue {

namespace {

// Bytes of records a lane keeps in memory before it writes them to its file, and reads back at
// once: with hundreds of zones waiting, a few MiB in all.
constexpr std::size_t k_tail_bytes = 16 * 1024;
constexpr std::size_t k_chunk_bytes = 16 * 1024;

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

// Reads from a record, checking that each part is there.
class Reader {
public:
    explicit Reader(std::string_view in) : m_in(in) {}

    template <typename T>
    bool get(T& value) {
        if (m_in.size() - m_at < sizeof(T)) {
            return false;
        }
        std::memcpy(&value, m_in.data() + m_at, sizeof(T));
        m_at += sizeof(T);
        return true;
    }
    bool get_text(std::string& text) {
        std::uint32_t size = 0;
        if (!get(size) || m_in.size() - m_at < size) {
            return false;
        }
        text.assign(m_in.data() + m_at, size);
        m_at += size;
        return true;
    }
    std::size_t at() const { return m_at; }

private:
    std::string_view m_in;
    std::size_t m_at = 0;
};

}  // namespace

void encode_job(const Job& job, std::string& out) {
    const std::size_t start = out.size();
    put_int(out, std::uint32_t{0});  // the record's length, set below
    put_int(out, job.row);
    put_int(out, static_cast<std::int32_t>(job.zone));
    put_int(out, job.note);
    put_int(out, static_cast<std::int32_t>(job.requests));
    put_int(out, static_cast<std::int32_t>(job.attempts));
    put_int(out, static_cast<std::int32_t>(job.pair_rate_answers));
    put_int(out, static_cast<std::uint8_t>(job.template_send));
    put_int(out, static_cast<std::uint8_t>(job.marketing_hold));
    put_text(out, job.wa_id);
    put_text(out, job.user_name);
    put_text(out, job.body);
    const auto length = static_cast<std::uint32_t>(out.size() - start);
    std::memcpy(out.data() + start, &length, sizeof length);
}

std::size_t decode_job(std::string_view in, Job& out) {
    std::uint32_t length = 0;
    if (in.size() < sizeof length) {
        return 0;
    }
    std::memcpy(&length, in.data(), sizeof length);
    if (in.size() < length) {
        return 0;
    }
    Reader r(in.substr(0, length));
    std::uint32_t skipped = 0;
    std::int32_t zone = 0;
    std::int32_t requests = 0;
    std::int32_t attempts = 0;
    std::int32_t pair_rate = 0;
    std::uint8_t template_send = 0;
    std::uint8_t hold = 0;
    const bool whole = r.get(skipped) && r.get(out.row) && r.get(zone) && r.get(out.note) && r.get(requests) &&
                       r.get(attempts) && r.get(pair_rate) && r.get(template_send) && r.get(hold) &&
                       r.get_text(out.wa_id) && r.get_text(out.user_name) && r.get_text(out.body) && r.at() == length;
    if (!whole) {
        return 0;
    }
    out.zone = zone;
    out.requests = requests;
    out.attempts = attempts;
    out.pair_rate_answers = pair_rate;
    out.template_send = template_send != 0;
    out.marketing_hold = static_cast<service::MarketingHold>(hold);
    return length;
}

// One zone's jobs. Rows come in CSV order, mostly: those go through `head`, then the unread part
// of `chunk`, then the file from `read`, then `tail`. A row that comes back lower than the last
// of those (taken back when the zone opened, then held up past its window's end by the pace or
// the daily cap; a retry) waits in `early`, in memory (there are only as many as were taken back
// at once), so that the zone's rows still go lowest first.
struct SetAside::Lane {
    std::optional<Job> head;
    std::string chunk;  // read from the file ahead of need
    std::size_t chunk_at = 0;
    std::optional<util::TempFile> file;
    std::uint64_t read = 0;
    std::string tail;           // set aside after the file's last record, not written yet
    std::int64_t queued = 0;    // rows in head, chunk, file and tail
    std::int64_t last_row = 0;  // the last of those set aside
    std::map<std::int64_t, Job> early;
    Admission answer;  // the later answer that set the last job aside: its reason and opening

    std::int64_t rows() const { return queued + static_cast<std::int64_t>(early.size()); }

    // The lowest row waiting; rows() > 0.
    std::int64_t first_row() const {
        if (!head) {
            return early.begin()->first;
        }
        return early.empty() ? head->row : std::min(head->row, early.begin()->first);
    }

    util::Result<void> put(const Job& job) {
        if (queued > 0 && job.row <= last_row) {
            early.insert_or_assign(job.row, job);
            return {};
        }
        last_row = job.row;
        if (queued++ == 0) {
            head = job;
            return {};
        }
        encode_job(job, tail);
        if (tail.size() < k_tail_bytes) {
            return {};
        }
        if (!file) {
            TRY_ASSIGN(auto created, util::TempFile::create({}));
            file.emplace(std::move(created));
        }
        TRY(file->write_at(file->size(), tail.data(), tail.size()));
        tail.clear();
        return {};
    }

    // Moves the lowest row out (rows() > 0).
    util::Result<void> take(Job& out) {
        if (!early.empty() && (!head || early.begin()->first < head->row)) {
            out = std::move(early.begin()->second);
            early.erase(early.begin());
            return {};
        }
        out = std::move(*head);
        head.reset();
        if (--queued == 0) {
            chunk.clear();
            chunk_at = 0;
            file.reset();  // closed, and gone with it
            read = 0;
            tail.clear();
            return {};
        }
        Job next;
        for (;;) {
            const std::string_view unread = std::string_view(chunk).substr(chunk_at);
            if (const std::size_t used = decode_job(unread, next); used > 0) {
                chunk_at += used;
                head = std::move(next);
                return {};
            }
            chunk.erase(0, chunk_at);
            chunk_at = 0;
            if (file && read < file->size()) {
                const auto bytes =
                    static_cast<std::size_t>(std::min<std::uint64_t>(k_chunk_bytes, file->size() - read));
                const std::size_t had = chunk.size();
                chunk.resize(had + bytes);
                TRY(file->read_at(read, chunk.data() + had, bytes));
                read += bytes;
            } else if (!tail.empty()) {
                chunk += tail;
                tail.clear();
            } else {
                return util::fail("a job set aside until its send window opens could not be read back");
            }
        }
    }
};

SetAside::SetAside() = default;
SetAside::SetAside(SetAside&&) noexcept = default;
SetAside& SetAside::operator=(SetAside&&) noexcept = default;
SetAside::~SetAside() = default;

util::Result<void> SetAside::put(const Job& job, const Admission& answer) {
    auto& lane = m_lanes[job.zone];
    if (!lane) {
        lane = std::make_unique<Lane>();
    }
    TRY(lane->put(job));
    lane->answer = answer;
    ++m_size;
    return {};
}

util::Result<bool> SetAside::take_due(WallTime now, Job& out) {
    Lane* first = nullptr;
    for (auto& [zone, lane] : m_lanes) {
        const bool due = lane->rows() > 0 && lane->answer.until && *lane->answer.until <= now;
        if (due && (first == nullptr || lane->first_row() < first->first_row())) {
            first = lane.get();
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
        if (lane->rows() > 0 && lane->answer.until) {
            next = next ? std::min(*next, *lane->answer.until) : *lane->answer.until;
        }
    }
    return next;
}

std::vector<ZoneWait> SetAside::waits() const {
    std::vector<ZoneWait> out;
    for (const auto& [zone, lane] : m_lanes) {
        if (lane->rows() > 0) {
            out.push_back({lane->answer.reason, lane->answer.until, lane->rows()});
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const ZoneWait& a, const ZoneWait& b) {
        return a.opens.value_or(WallTime::max()) < b.opens.value_or(WallTime::max());
    });
    return out;
}

}  // namespace queue
