-- ini.lua - Wireshark dissector for INI's transport (the sliding window of
-- stack/swp.c, on UDP port 7400) and the active-message header behind it
-- (ini/cn/msg.h).
--
--   tshark -X lua_script:tools/wireshark/ini.lua -r FILE -V
--   wireshark -X lua_script:tools/wireshark/ini.lua FILE
--   (`make install` puts it in the Lua plugin folder tshark loads, `tshark -G
--   folders`; or copy it to ~/.local/lib/wireshark/plugins/)
--
-- Transport header (stack/swp.h), multi-byte fields big-endian, by the
-- configuration's stack.seq_bits:
--    8 bits:  op(1) conn(1) seq(1) ack(1)   4 bytes
--   16 bits:  op(1) conn(1) seq(2) ack(2)   6 bytes
--   32 bits:  op(1) conn(1) seq(4) ack(4)  10 bytes (the default)
-- With the MAC (security.mac, on by default on a LAN since issue 49) a
-- 16-byte tag follows the header: DATA is header, tag, CRC (0 under the
-- MAC since it covers the message: "not sent"), message; ACK,
-- NAK and PROBE header and tag (then an ACK's grant, a NAK's run and grant,
-- when they carry them); SYNC header, tag, body.  The tag is shown,
-- not checked (the run key is not in the capture).
-- op: 1 DATA, 2 ACK, 3 NAK, 4 PROBE, 5 SYNC in the low five bits; a DATA frame's two
-- high bits place a segment in its message (stack.segmentation): 0x80 MORE
-- (segments follow), 0x40 CONT (not the first); neither: a whole message;
-- 0x20 RETX: the sender sent the frame before (ini_swp.retx_flag; the
-- capture's own inference, below, is ini_swp.retransmission).  PROBE: the sender
-- has sent everything before `seq` (the receiver NAKs what it lacks).
-- SYNC (after a restart, docs/transport.md "An INI that restarts"): seq the
-- sender's next sequence number, ack its durable next expected; an 8-byte
-- body, big-endian: the sender's incarnation and the one it answers (0 in
-- a SYNC); 0x80 REPLY marks the answer.
-- Only a whole message or a first segment starts with the AM header; a
-- segment's CRC covers its own bytes.  conn: the sending INI's global id.  ack:
-- cumulative, the next sequence number the frame's sender expects.  NAK asks
-- for message `seq`.  An ACK's seq field is unused (0): an ACK is shown by
-- its ack alone.  DATA adds a CRC32C of the message (AM header and
-- payload, stored little-endian) and then the message.
--
-- Retransmissions: a DATA frame whose sequence number the same sender
-- already sent on the same connection (seen earlier in the capture) is
-- marked "[Retransmission of frame N]", with ini_swp.retransmission and
-- ini_swp.retransmission_of (filter: ini_swp.retransmission) and an
-- expert note; a duplicate the network made looks the same.  The sequence
-- numbers of a flow are compared modulo their width, so a wrapped 8- or
-- 16-bit number starts afresh.
--
-- Truncated frames (`--capture-snap`, tcpdump -s): lengths are taken from
-- what the frame had on the wire (the IP header's), and a DATA frame's
-- CRC32C, which covers bytes the capture does not hold, is not computed:
-- "[CRC unchecked: frame truncated]" (ini_swp.crc_unchecked), never a
-- mismatch.
--
-- Frames dropped by fault injection on the sending side (`--fault`, side
-- tx) are in the INI's capture all the same, outbound, with the pcapng
-- comment "dropped by fault injection (not sent)" (ini/daemon/capture.h):
-- they show as "[Dropped by fault injection]" (ini_swp.fault_dropped),
-- and the frame that sends them again as their retransmission.
--
-- Without this script Wireshark has no dissector for port 7400, and its
-- QUIC heuristic takes some frames for QUIC (a first segment from INI 0
-- with a sequence number of 256..511 reads as a QUIC v1 Initial) and then
-- the whole flow: decode as data instead, `tshark -d udp.port==7400,data`
-- (docs/launcher.md, "Reading a capture").
--
-- The width is not on the wire.  Preference "Sequence-number width": auto
-- (the default) takes it from the length: an ACK or NAK is exactly a header
-- (4, 6 or 10 bytes); for DATA the width whose AM header's length field
-- accounts for the rest of the datagram.
--
-- Active-message header (ini/cn/msg.h), 16 bytes, little-endian: src_pe(2)
-- dst_pe(2) handler(2) flags(2: the sending INI's load) len(4: payload
-- bytes) pe_seq(4).
--
-- Long messages travel as transport segments (one frame each, decoded one by
-- one) or, with stack.segmentation off, as IPv4 fragments; Wireshark's IP
-- reassembly (on by default) hands the whole datagram to this dissector at
-- the last fragment.
-- Frames carry plain IPv4 (EtherType 0x0800).  Captures made before the LAN
-- went to standard IPv4 carry EtherType 0x88b5 with IPv4 inside; that
-- EtherType stays registered to the IP dissector so they still decode.

local swp = Proto("ini_swp", "INI transport (sliding window)")
local am = Proto("ini_am", "INI active message")

local OPS = { [1] = "DATA", [2] = "ACK", [3] = "NAK", [4] = "PROBE", [5] = "SYNC" }
local SYNC_BODY = 8
local SEG = { [0x80] = "first segment", [0xc0] = "segment", [0x40] = "last segment" }

local f = {
    op      = ProtoField.uint8("ini_swp.op", "Opcode", base.DEC, OPS),
    conn    = ProtoField.uint8("ini_swp.conn", "Connection (sending INI)", base.DEC),
    seq     = ProtoField.uint32("ini_swp.seq", "Sequence number", base.DEC),
    ack     = ProtoField.uint32("ini_swp.ack", "Acknowledgement (next expected)", base.DEC),
    width   = ProtoField.uint8("ini_swp.seq_bits", "Sequence-number width (bits)", base.DEC),
    tag     = ProtoField.bytes("ini_swp.mac_tag", "MAC tag (not checked: no key in the capture)"),
    crc     = ProtoField.uint32("ini_swp.crc", "CRC32C of the message", base.HEX),
    crc_ok  = ProtoField.bool("ini_swp.crc_ok", "CRC32C correct"),
    crc_unchecked = ProtoField.bool("ini_swp.crc_unchecked", "CRC32C unchecked: frame truncated"),
    crc_none = ProtoField.bool("ini_swp.crc_none", "CRC32C not sent: the MAC covers the message"),
    dropped = ProtoField.bool("ini_swp.fault_dropped", "Dropped by fault injection (not sent)"),
    retx    = ProtoField.bool("ini_swp.retransmission", "Retransmission"),
    retx_of = ProtoField.framenum("ini_swp.retransmission_of", "Retransmission of frame", base.NONE),
    msg_len = ProtoField.uint32("ini_swp.msg_len", "Message bytes (AM header and payload)", base.DEC),
    seg     = ProtoField.uint8("ini_swp.seg", "Segment flags", base.HEX, nil, 0xc0),
    more    = ProtoField.bool("ini_swp.seg.more", "More segments follow", 8, nil, 0x80),
    cont    = ProtoField.bool("ini_swp.seg.cont", "Continues a message", 8, nil, 0x40),
    retx_flag = ProtoField.bool("ini_swp.retx_flag", "RETX flag (sent before)", 8, nil, 0x20),
    reply   = ProtoField.bool("ini_swp.sync.reply", "Answer to a SYNC", 8, nil, 0x80),
    inc     = ProtoField.uint32("ini_swp.sync.incarnation", "Sender's incarnation", base.DEC),
    answers = ProtoField.uint32("ini_swp.sync.answers", "Answers incarnation", base.DEC),
}
-- Every field of the table above, which Wireshark takes keyed by name as
-- well as listed (it registers each ProtoField it finds in the table).
swp.fields = f

local a = {
    src     = ProtoField.uint16("ini_am.src_pe", "Source PE", base.DEC),
    dst     = ProtoField.uint16("ini_am.dst_pe", "Destination PE", base.DEC),
    handler = ProtoField.uint16("ini_am.handler", "Handler", base.DEC),
    flags   = ProtoField.uint16("ini_am.flags", "Flags (sending INI's load)", base.DEC),
    len     = ProtoField.uint32("ini_am.len", "Payload length", base.DEC),
    pe_seq  = ProtoField.uint32("ini_am.pe_seq", "Sender's sequence number", base.DEC),
    payload = ProtoField.bytes("ini_am.payload", "Payload"),
}
am.fields = a

local e_bad_op = ProtoExpert.new("ini_swp.bad_op", "Unknown opcode", expert.group.MALFORMED, expert.severity.ERROR)
local e_short = ProtoExpert.new("ini_swp.short", "Frame too short", expert.group.MALFORMED, expert.severity.ERROR)
local e_crc = ProtoExpert.new("ini_swp.bad_crc", "CRC32C mismatch", expert.group.CHECKSUM, expert.severity.ERROR)
local e_len = ProtoExpert.new("ini_am.bad_len", "AM length disagrees with the datagram",
                              expert.group.MALFORMED, expert.severity.WARN)
local e_retx = ProtoExpert.new("ini_swp.retransmission", "Retransmission of a DATA frame",
                               expert.group.SEQUENCE, expert.severity.NOTE)
swp.experts = { e_bad_op, e_short, e_crc, e_len, e_retx }

swp.prefs.seq_bits = Pref.enum("Sequence-number width", 0, "stack.seq_bits of the configuration (auto: from the length)",
                               { { 1, "auto", 0 }, { 2, "8", 8 }, { 3, "16", 16 }, { 4, "32", 32 } }, false)
swp.prefs.mac = Pref.enum("MAC tag", 0, "security.mac of the run (auto: from the CRC and the lengths)",
                          { { 1, "auto", 0 }, { 2, "off", 1 }, { 3, "on", 2 } }, false)
swp.prefs.check_crc = Pref.bool("Verify CRC32C", true, "Compute the CRC32C of each DATA message")
swp.prefs.port = Pref.uint("UDP port", 7400, "The INIs' UDP port (INI_UDP_PORT)")

-- CRC32C (Castagnoli, reflected polynomial 0x82F63B78), as stack/checksum.c.
local crc_table = {}
for i = 0, 255 do
    local c = i
    for _ = 1, 8 do
        if bit32.band(c, 1) ~= 0 then
            c = bit32.bxor(bit32.rshift(c, 1), 0x82F63B78)
        else
            c = bit32.rshift(c, 1)
        end
    end
    crc_table[i] = c
end

local function crc32c(tvb, offset, len)
    local c = 0xFFFFFFFF
    local bytes = tvb:range(offset, len):bytes()
    for i = 0, len - 1 do
        c = bit32.bxor(crc_table[bit32.band(bit32.bxor(c, bytes:get_index(i)), 0xFF)], bit32.rshift(c, 8))
    end
    return bit32.bnot(c)
end

local function hdr_len(bits) return 2 + 2 * (bits / 8) end

-- The pcapng comment capture.c gives a frame the fault injector dropped.
local frame_comment = Field.new("frame.comment")
local DROPPED_NOTE = "dropped by fault injection"
local function fault_dropped()
    for _, c in ipairs({ frame_comment() }) do
        if tostring(c.value):find(DROPPED_NOTE, 1, true) then return true end
    end
    return false
end

-- Retransmissions, found on the first pass in frame order and kept per
-- frame (retx_of[frame]: the frame it repeats, or false), so that later
-- passes and redraws give the same answer.  flows[key] holds, per sender,
-- receiver and connection, the frame of each sequence number sent and the
-- highest number seen.
local retx_of, flows = {}, {}
function swp.init() retx_of, flows = {}, {} end

local function retransmission(pinfo, conn, seq, bits)
    local num = pinfo.number
    if pinfo.visited or retx_of[num] ~= nil then return retx_of[num] end
    local key = tostring(pinfo.src) .. ">" .. tostring(pinfo.dst) .. "#" .. conn
    local fl = flows[key]
    if not fl then
        fl = { sent = {}, top = seq }
        flows[key] = fl
    end
    local mod, half = 2 ^ bits, 2 ^ (bits - 1)
    local behind = (fl.top - seq) % mod     -- how far seq is below the highest
    local first = fl.sent[seq]
    if first and first < num and behind < half then
        retx_of[num] = first
    else
        retx_of[num] = false
        fl.sent[seq] = num
        if behind >= half then                 -- ahead of the highest: the new highest
            fl.top = seq
            -- numbers half the space behind it belong to the next wrap
            fl.sent[(seq + half) % mod] = nil
        end
    end
    return retx_of[num]
end

local function read_seq(tvb, offset, bits)
    if bits == 8 then return tvb(offset, 1):uint() end
    if bits == 16 then return tvb(offset, 2):uint() end
    return tvb(offset, 4):uint()
end

local TAG = 16
local function tags_to_try()
    if swp.prefs.mac == 1 then return { 0 } end
    if swp.prefs.mac == 2 then return { TAG } end
    return { 0, TAG }
end

-- The width and the tag of this datagram (bits, tag bytes): the
-- preferences, else from the length it had on the wire (n; the capture may
-- hold fewer bytes) and, for segments, the CRC that matches.
local function layout_of(tvb, n, bits, tag)
    local op = bit32.band(tvb(0, 1):uint(), 0x1f)
    local hl = hdr_len(bits) + tag
    if bit32.band(tvb(0, 1):uint(), 0xc0) ~= 0 and op == 1 then
        -- A segment: no AM length to go by; the layout whose CRC matches.
        -- Under the MAC the CRC field is 0 (not sent: the MAC covers it).
        local off = hl + 4
        if n > tvb:len() or n <= off then return false end
        local field = tvb(off - 4, 4):le_uint()
        return (tag > 0 and field == 0) or crc32c(tvb, off, n - off) == field
    end
    if op ~= 1 then
        -- Control frames: SYNC has its body; an ACK may carry the grant (2
        -- bytes), a NAK the run's length and the grant (4); a PROBE nothing.
        local body = n - hl
        if op == 5 then return body == SYNC_BODY end
        return body == 0 or (op == 2 and body == 2) or (op == 3 and body == 4)
    end
    local off = hl + 4
    return n >= off + 16 and tvb:len() >= off + 12 and tvb(off + 8, 4):le_uint() == n - off - 16
end

local function guess_layout(tvb, n)
    local widths = swp.prefs.seq_bits ~= 0 and { swp.prefs.seq_bits } or { 32, 16, 8 }
    local tags = tags_to_try()
    for _, tag in ipairs(tags) do
        for _, bits in ipairs(widths) do
            if layout_of(tvb, n, bits, tag) then return bits, tag end
        end
    end
    -- Nothing matched (a truncated segment, a damaged frame): the default
    -- width, and the tag only when the preference says so.
    return widths[1], swp.prefs.mac == 2 and TAG or 0
end

-- first_segment: the AM header's length counts the segments that follow too.
-- n: the message's bytes on the wire (the capture may hold fewer).
local function dissect_am(tvb, tree, offset, n, first_segment)
    local t = tree:add(am, tvb(offset))
    if n < 16 then
        t:add_proto_expert_info(e_short)
        return ""
    end
    local src, dst = tvb(offset, 2):le_uint(), tvb(offset + 2, 2):le_uint()
    local handler, len = tvb(offset + 4, 2):le_uint(), tvb(offset + 8, 4):le_uint()
    t:add_le(a.src, tvb(offset, 2))
    t:add_le(a.dst, tvb(offset + 2, 2))
    t:add_le(a.handler, tvb(offset + 4, 2))
    t:add_le(a.flags, tvb(offset + 6, 2))
    local lt = t:add_le(a.len, tvb(offset + 8, 4))
    t:add_le(a.pe_seq, tvb(offset + 12, 4))
    if len ~= n - 16 and not (first_segment and len > n - 16) then lt:add_proto_expert_info(e_len) end
    if n > 16 and tvb:len() > offset + 16 then t:add(a.payload, tvb(offset + 16)) end
    t:append_text(string.format(", PE %d -> PE %d, handler %d, %d bytes", src, dst, handler, len))
    return string.format(" PE %d->%d h=%d len=%d", src, dst, handler, len)
end

function swp.dissector(tvb, pinfo, tree)
    local n = tvb:reported_len()           -- on the wire; tvb:len() is what was captured
    if tvb:len() < 4 then return 0 end
    pinfo.cols.protocol = "INI"
    local op = bit32.band(tvb(0, 1):uint(), 0x1f)
    local flags = bit32.band(tvb(0, 1):uint(), 0xc0)
    local retx = bit32.band(tvb(0, 1):uint(), 0x20)
    local bits, tag = guess_layout(tvb, n)
    local hl = hdr_len(bits)
    local t = tree:add(swp, tvb(0, math.min(n, hl + tag)))
    local ot = t:add(f.op, tvb(0, 1), op)
    local reply = op == 5 and flags == 0x80
    if reply then
        t:add(f.reply, tvb(0, 1))
        flags = 0                       -- not a segment's flags
    end
    if flags ~= 0 then
        t:add(f.seg, tvb(0, 1))
        t:add(f.more, tvb(0, 1))
        t:add(f.cont, tvb(0, 1))
    end
    if retx ~= 0 then t:add(f.retx_flag, tvb(0, 1)) end
    if not OPS[op] or (flags + retx ~= 0 and op ~= 1) then
        ot:add_proto_expert_info(e_bad_op)
        pinfo.cols.info = string.format("INI unknown opcode %d", op)
        return n
    end
    if n < hl + tag + (op == 5 and SYNC_BODY or 0) then
        t:add_proto_expert_info(e_short)
        pinfo.cols.info = "INI " .. OPS[op] .. " (short)"
        return n
    end
    local conn = tvb(1, 1):uint()
    local seq = read_seq(tvb, 2, bits)
    local ack = read_seq(tvb, 2 + bits / 8, bits)
    t:add(f.conn, tvb(1, 1))
    local info
    if op == 2 then
        -- An ACK says only how far the sender has received: its seq is unused.
        t:add(f.ack, tvb(2 + bits / 8, bits / 8), ack)
        t:append_text(string.format(", ACK, conn %d, ack %d", conn, ack))
        info = string.format("ACK conn=%d ack=%d", conn, ack)
    else
        t:add(f.seq, tvb(2, bits / 8), seq)
        t:add(f.ack, tvb(2 + bits / 8, bits / 8), ack)
        t:append_text(string.format(", %s, conn %d, seq %d, ack %d", OPS[op], conn, seq, ack))
        info = string.format("%s conn=%d seq=%d ack=%d", OPS[op], conn, seq, ack)
    end
    if tag > 0 and tvb:len() >= hl + tag then t:add(f.tag, tvb(hl, tag)) end
    hl = hl + tag                       -- what follows the header and the tag
    if op == 5 then
        t:set_len(hl + SYNC_BODY)
        local inc, answers = tvb(hl, 4):uint(), tvb(hl + 4, 4):uint()
        t:add(f.inc, tvb(hl, 4))
        t:add(f.answers, tvb(hl + 4, 4))
        if reply then
            t:append_text(string.format(", answer, incarnation %d answers %d", inc, answers))
            info = string.format("SYNC-REPLY conn=%d seq=%d ack=%d inc=%d answers=%d", conn, seq, ack, inc, answers)
        else
            t:append_text(string.format(", incarnation %d", inc))
            info = info .. string.format(" inc=%d", inc)
        end
    end
    t:add(f.width, bits):set_generated()
    if fault_dropped() then
        t:add(f.dropped, true):set_generated()
        info = info .. " [Dropped by fault injection]"
    end
    if op == 1 then
        local first = retransmission(pinfo, conn, seq, bits)
        if first then
            t:add(f.retx, true):set_generated()
            t:add(f.retx_of, first):set_generated()
            t:add_proto_expert_info(e_retx, string.format("Retransmission of frame %d", first))
            info = info .. string.format(" [Retransmission of frame %d]", first)
        end
    end
    if flags ~= 0 then
        t:append_text(", " .. SEG[flags])
        info = info .. " (" .. SEG[flags] .. ")"
    end
    if retx ~= 0 then
        t:append_text(", retransmission")
        info = info .. " [RETX]"
    end
    if op == 1 then
        if n < hl + 4 + (bit32.band(flags, 0x40) ~= 0 and 1 or 16) then
            t:add_proto_expert_info(e_short)
        else
            t:set_len(hl + 4)
            local mlen = n - hl - 4
            local ct = t:add_le(f.crc, tvb(hl, 4))
            t:add(f.msg_len, mlen):set_generated()
            if n > tvb:len() then
                -- The CRC covers bytes the capture does not hold.
                t:add(f.crc_unchecked, true):set_generated()
                ct:append_text(" [CRC unchecked: frame truncated]")
                info = info .. " [CRC unchecked: frame truncated]"
            elseif tag > 0 and tvb(hl, 4):le_uint() == 0 then
                t:add(f.crc_none, true):set_generated()
                ct:append_text(" [not sent: the MAC covers the message]")
            elseif swp.prefs.check_crc then
                local ok = crc32c(tvb, hl + 4, mlen) == tvb(hl, 4):le_uint()
                t:add(f.crc_ok, ok):set_generated()
                if not ok then
                    ct:add_proto_expert_info(e_crc)
                    info = info .. " [BAD CRC]"
                end
            end
            if bit32.band(flags, 0x40) == 0 then    -- a whole message or a first segment
                info = info .. dissect_am(tvb, tree, hl + 4, mlen, flags ~= 0)
            end
        end
    end
    pinfo.cols.info = info
    return n
end

local registered_port
local function register()
    local udp = DissectorTable.get("udp.port")
    if registered_port then udp:remove(registered_port, swp) end
    registered_port = swp.prefs.port
    udp:add(registered_port, swp)
end
register()
function swp.prefs_changed() register() end

-- Older af_packet LAN captures: IPv4 under the local experimental EtherType.  A
-- protocol of its own that only hands the frame to IP (registering IP's
-- handle twice in the table makes Wireshark warn about a duplicate name).
local lan = Proto("ini_lan", "INI af_packet LAN (IPv4 under EtherType 0x88b5)")
local ip = Dissector.get("ip")
function lan.dissector(tvb, pinfo, tree) return ip:call(tvb, pinfo, tree) end
DissectorTable.get("ethertype"):add(0x88b5, lan)
