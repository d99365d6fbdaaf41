# The first ```c block of DOC is the file PROGRAM, byte for byte (so the program the document
# shows is the one the tests compile and run). Usage: cmake -DDOC=... -DPROGRAM=... -P this.
file(READ ${DOC} doc)
file(READ ${PROGRAM} program)
string(FIND "${doc}" "```c\n" start)
if(start LESS 0)
    message(FATAL_ERROR "${DOC}: no ```c block")
endif()
math(EXPR start "${start} + 5")
string(SUBSTRING "${doc}" ${start} -1 rest)
string(FIND "${rest}" "\n```" stop)
math(EXPR stop "${stop} + 1")
string(SUBSTRING "${rest}" 0 ${stop} block)
if(NOT block STREQUAL program)
    message(FATAL_ERROR "${DOC}: its first ```c block differs from ${PROGRAM}; copy the file "
                        "into the document")
endif()
message(STATUS "${DOC}: its first ```c block is ${PROGRAM}")
