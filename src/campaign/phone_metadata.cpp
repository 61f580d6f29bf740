// Reads the metadata compiled into libphonenumber (a serialised PhoneMetadataCollection)
// into PhoneRules. The few fields needed are decoded from the protobuf wire format here,
// which spares a direct dependency on libprotobuf.

#include <cstdint>
#include <memory>

#include "campaign/phone_rules.hpp"

// Exported by libphonenumber (phonenumbers/metadata.h, which is not installed).
namespace i18n::phonenumbers {
int metadata_size();
const void* metadata_get();
} // namespace i18n::phonenumbers

namespace campaign {

namespace {

// Field numbers of phonemetadata.proto.
namespace field {
constexpr int collection_metadata = 1;
constexpr int desc_pattern = 2, desc_lengths = 9, desc_local_lengths = 10;
constexpr int general = 1, fixed = 2, mobile = 3, toll_free = 4, premium = 5, shared = 6,
              personal = 7, voip = 8, id = 9, country_code = 10, idd = 11,
              national_prefix = 15, transform_rule = 16, same_mobile_and_fixed = 18,
              pager = 21, main_country = 22, leading_digits = 23, uan = 25, voicemail = 28;
} // namespace field

enum Wire { varint = 0, fixed64 = 1, bytes = 2, fixed32 = 5 };

class WireReader {
public:
    explicit WireReader(std::string_view data)
        : m_p(reinterpret_cast<const std::uint8_t*>(data.data())), m_end(m_p + data.size())
    {
    }

    bool ok() const { return m_ok; }
    bool done() const { return !m_ok || m_p >= m_end; }

    // Reads the next tag; false at the end or on malformed input.
    bool next(int& field, int& wire)
    {
        if (done()) {
            return false;
        }
        const std::uint64_t tag = read_varint();
        field = static_cast<int>(tag >> 3);
        wire = static_cast<int>(tag & 7);
        return m_ok;
    }

    std::uint64_t read_varint()
    {
        std::uint64_t value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_p >= m_end) {
                break;
            }
            const std::uint8_t b = *m_p++;
            value |= static_cast<std::uint64_t>(b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        m_ok = false;
        return 0;
    }

    std::string_view read_bytes()
    {
        const std::uint64_t size = read_varint();
        if (!m_ok || size > static_cast<std::uint64_t>(m_end - m_p)) {
            m_ok = false;
            return {};
        }
        const std::string_view out(reinterpret_cast<const char*>(m_p), size);
        m_p += size;
        return out;
    }

    void skip(int wire)
    {
        const std::ptrdiff_t left = m_end - m_p;
        switch (wire) {
        case varint:
            read_varint();
            break;
        case fixed64:
            m_ok = left >= 8;
            m_p += m_ok ? 8 : 0;
            break;
        case bytes:
            read_bytes();
            break;
        case fixed32:
            m_ok = left >= 4;
            m_p += m_ok ? 4 : 0;
            break;
        default:
            m_ok = false;
        }
    }

private:
    const std::uint8_t* m_p;
    const std::uint8_t* m_end;
    bool m_ok = true;
};

bool compile_into(std::optional<DigitPattern>& out, std::string_view pattern)
{
    out = DigitPattern::compile(pattern);
    return out.has_value();
}

// Repeated int32: one varint per entry, or packed.
bool read_lengths(WireReader& r, int wire, std::vector<int>& out)
{
    if (wire == varint) {
        out.push_back(static_cast<int>(static_cast<std::int32_t>(r.read_varint())));
        return r.ok();
    }
    WireReader packed(r.read_bytes());
    while (!packed.done()) {
        out.push_back(static_cast<int>(static_cast<std::int32_t>(packed.read_varint())));
    }
    return r.ok() && packed.ok();
}

bool read_desc(std::string_view data, PhoneRules::Desc& desc)
{
    WireReader r(data);
    int f = 0;
    int wire = 0;
    while (r.next(f, wire)) {
        if (f == field::desc_pattern && wire == bytes) {
            const std::string_view pattern = r.read_bytes();
            // An empty pattern matches nothing (RegexBasedMatcher::MatchNationalNumber).
            if (!pattern.empty() && !compile_into(desc.pattern, pattern)) {
                return false;
            }
        } else if (f == field::desc_lengths) {
            if (!read_lengths(r, wire, desc.lengths)) {
                return false;
            }
        } else if (f == field::desc_local_lengths) {
            if (!read_lengths(r, wire, desc.local_lengths)) {
                return false;
            }
        } else {
            r.skip(wire);
        }
    }
    return r.ok();
}

PhoneRules::Desc* desc_for(PhoneRules::Region& region, int f)
{
    switch (f) {
    case field::general: return &region.general;
    case field::fixed: return &region.fixed;
    case field::mobile: return &region.mobile;
    case field::toll_free: return &region.toll_free;
    case field::premium: return &region.premium;
    case field::shared: return &region.shared;
    case field::personal: return &region.personal;
    case field::voip: return &region.voip;
    case field::pager: return &region.pager;
    case field::uan: return &region.uan;
    case field::voicemail: return &region.voicemail;
    default: return nullptr;
    }
}

bool read_region(std::string_view data, PhoneRules::Region& region)
{
    WireReader r(data);
    int f = 0;
    int wire = 0;
    bool ok = true;
    while (ok && r.next(f, wire)) {
        if (PhoneRules::Desc* desc = desc_for(region, f); desc != nullptr && wire == bytes) {
            ok = read_desc(r.read_bytes(), *desc);
        } else if (f == field::id && wire == bytes) {
            region.id = std::string(r.read_bytes());
        } else if (f == field::country_code && wire == varint) {
            region.country_code = static_cast<int>(r.read_varint());
        } else if (f == field::idd && wire == bytes) {
            ok = compile_into(region.idd, r.read_bytes());
        } else if (f == field::national_prefix && wire == bytes) {
            const std::string_view pattern = r.read_bytes();
            ok = pattern.empty() || compile_into(region.national_prefix, pattern);
        } else if (f == field::transform_rule && wire == bytes) {
            region.transform_rule = std::string(r.read_bytes());
        } else if (f == field::leading_digits && wire == bytes) {
            ok = compile_into(region.leading_digits, r.read_bytes());
        } else if (f == field::same_mobile_and_fixed && wire == varint) {
            region.same_mobile_and_fixed = r.read_varint() != 0;
        } else if (f == field::main_country && wire == varint) {
            region.main_country = r.read_varint() != 0;
        } else {
            r.skip(wire);
        }
    }
    return ok && r.ok() && !region.id.empty() && region.country_code > 0;
}

std::unique_ptr<PhoneRules> load()
{
    const std::string_view blob(static_cast<const char*>(i18n::phonenumbers::metadata_get()),
                                static_cast<std::size_t>(i18n::phonenumbers::metadata_size()));
    WireReader r(blob);
    std::vector<PhoneRules::Region> regions;
    int f = 0;
    int wire = 0;
    while (r.next(f, wire)) {
        if (f != field::collection_metadata || wire != bytes) {
            r.skip(wire);
            continue;
        }
        PhoneRules::Region region;
        if (!read_region(r.read_bytes(), region)) {
            return nullptr;
        }
        if (region.id != "ZZ") {
            regions.push_back(std::move(region));
        }
    }
    if (!r.ok() || regions.empty()) {
        return nullptr;
    }
    return std::make_unique<PhoneRules>(std::move(regions));
}

} // namespace

const PhoneRules* PhoneRules::shared()
{
    // Immutable once built, like libphonenumber's own singleton it stands beside.
    static const std::unique_ptr<PhoneRules> rules = load();
    return rules.get();
}

} // namespace campaign
