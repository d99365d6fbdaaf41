// Stand-in of gem5's src/mem/packet.hh and src/mem/request.hh (see ../README.md): a request with
// an optional PC, and a packet with its command's attributes as gem5's MemCmd gives them.
#ifndef __MEM_PACKET_HH__
#define __MEM_PACKET_HH__

#include "base/types.hh"

#include <memory>

namespace gem5 {

class Request {
public:
    Request() = default;
    explicit Request(Addr pc) : _pc(pc), _hasPC(true) {}
    bool hasPC() const { return _hasPC; }
    Addr getPC() const { return _pc; }

private:
    Addr _pc = 0;
    bool _hasPC = false;
};

typedef std::shared_ptr<Request> RequestPtr;

/// The commands the test sends, with gem5's attributes: WritebackDirty is a write and an
/// eviction; a CleanEvict an eviction without data; HardPFReq a hardware prefetch.
class MemCmd {
public:
    enum Command { ReadReq, WriteReq, WritebackDirty, WritebackClean, CleanEvict, HardPFReq };
    MemCmd(Command c) : cmd(c) {}
    bool isWrite() const {
        return cmd == WriteReq || cmd == WritebackDirty || cmd == WritebackClean;
    }
    bool isEviction() const {
        return cmd == WritebackDirty || cmd == WritebackClean || cmd == CleanEvict;
    }
    bool isWriteback() const { return cmd == WritebackDirty || cmd == WritebackClean; }
    bool isPrefetch() const { return cmd == HardPFReq; }

private:
    Command cmd;
};

class Packet {
public:
    Packet(RequestPtr r, MemCmd c, Addr a) : req(std::move(r)), cmd(c), addr(a) {}
    RequestPtr req;
    MemCmd cmd;
    Addr getAddr() const { return addr; }
    bool isWrite() const { return cmd.isWrite(); }
    bool isEviction() const { return cmd.isEviction(); }
    bool isWriteback() const { return cmd.isWriteback(); }

private:
    Addr addr;
};

typedef Packet* PacketPtr;

} // namespace gem5

#endif // __MEM_PACKET_HH__
