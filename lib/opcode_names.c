// SPDX-License-Identifier: GPL-2.0
#include "opcode_names.h"

#include <stdio.h>

/* enum io_uring_op is uapi: numbers never change, new ones are appended. */
static const char *const names[] = {
	"NOP", "READV", "WRITEV", "FSYNC", "READ_FIXED", "WRITE_FIXED",
	"POLL_ADD", "POLL_REMOVE", "SYNC_FILE_RANGE", "SENDMSG", "RECVMSG",
	"TIMEOUT", "TIMEOUT_REMOVE", "ACCEPT", "ASYNC_CANCEL", "LINK_TIMEOUT",
	"CONNECT", "FALLOCATE", "OPENAT", "CLOSE", "FILES_UPDATE", "STATX",
	"READ", "WRITE", "FADVISE", "MADVISE", "SEND", "RECV", "OPENAT2",
	"EPOLL_CTL", "SPLICE", "PROVIDE_BUFFERS", "REMOVE_BUFFERS", "TEE",
	"SHUTDOWN", "RENAMEAT", "UNLINKAT", "MKDIRAT", "SYMLINKAT", "LINKAT",
	"MSG_RING", "FSETXATTR", "SETXATTR", "FGETXATTR", "GETXATTR", "SOCKET",
	"URING_CMD", "SEND_ZC", "SENDMSG_ZC", "READ_MULTISHOT", "WAITID",
	"FUTEX_WAIT", "FUTEX_WAKE", "FUTEX_WAITV", "FIXED_FD_INSTALL",
	"FTRUNCATE", "BIND", "LISTEN", "RECV_ZC", "EPOLL_WAIT", "READV_FIXED",
	"WRITEV_FIXED", "PIPE",
};

const char *uc_opcode_name(uint8_t opcode, char buf[16])
{
	if (opcode < sizeof(names) / sizeof(names[0]))
		return names[opcode];
	snprintf(buf, 16, "OP_%u", opcode);
	return buf;
}
