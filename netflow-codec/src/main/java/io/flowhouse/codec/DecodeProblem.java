// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

/**
 * Something wrong inside a datagram that did not stop the rest from decoding. Callers count them by
 * {@link Kind}; the message follows Netty's style and says what was expected.
 *
 * @param kind the named problem
 * @param message what was seen and what was expected
 * @param templateId the template or set id concerned, or -1
 */
public record DecodeProblem(Kind kind, String message, int templateId) {

    /** Named problems. The same kinds label {@link DecodeException}s. */
    public enum Kind {
        /** Fewer bytes than the fixed header. */
        TRUNCATED_HEADER,
        /** Version not 5, 9 or 10 (nor sFlow's 32-bit 5). */
        UNSUPPORTED_VERSION,
        /** IPFIX header length larger than the datagram. */
        LENGTH_PAST_END,
        /** Bytes after the declared message length, or after the last set. */
        TRAILING_BYTES,
        /**
         * NetFlow v5 count of 0 or above 30, or more records than bytes; sFlow: more samples or
         * records declared than the datagram or sample holds.
         */
        BAD_RECORD_COUNT,
        /** v9 header count differs from the records found (a hint only). */
        COUNT_MISMATCH,
        /**
         * A set declares a length beyond the end of the message; sFlow: a sample or record length
         * beyond the end of its datagram or sample.
         */
        SET_LENGTH_PAST_END,
        /** A set declares a length shorter than its own header (0 included). */
        ZERO_LENGTH_SET,
        /** A set id that RFC 7011 reserves (0, 1 and 4..255 in IPFIX; 2..255 in v9). */
        RESERVED_SET_ID,
        /** Data set whose template is unknown in this scope. */
        TEMPLATE_MISSING,
        /** A template record that cannot be used (no fields, zero-length records, bad scope). */
        TEMPLATE_INVALID,
        /** Template declares more fields than its set can hold. */
        FIELD_COUNT_OVERFLOW,
        /**
         * A template cache limit (templates per exporter, template bytes per scope) was reached;
         * the template was not stored.
         */
        TEMPLATE_FLOOD,
        /** Template withdrawal for a template that was not known. */
        TEMPLATE_WITHDRAWAL_UNKNOWN,
        /** A field with a length its information element does not allow; skipped. */
        ODD_FIELD_LENGTH,
        /**
         * A data record runs past the end of its set (variable-length fields); sFlow: a sample or
         * record shorter than its structure needs.
         */
        RECORD_TRUNCATED,
        /** Flow times relative to sysUpTime but no systemInitTimeMilliseconds known. */
        TIME_BASE_MISSING,
        /** An options string (interface name) longer than the limit; kept cut to the limit. */
        OPTION_TRUNCATED,
        /** An options value refused: its scope holds the most options entries or bytes allowed. */
        OPTIONS_LIMIT,
        /** A template with more fields than the cache takes for one template; not stored. */
        TEMPLATE_TOO_LARGE,
        /** sFlow: a sample format the codec does not decode; skipped by its length. */
        UNKNOWN_SAMPLE_FORMAT,
        /** sFlow: a flow or counter record format the codec does not decode; skipped by length. */
        UNKNOWN_RECORD_FORMAT,
        /** sFlow: an address type other than 0 (unknown), 1 (IPv4) and 2 (IPv6). */
        BAD_ADDRESS_TYPE
    }

    public static DecodeProblem of(Kind kind, String message) {
        return new DecodeProblem(kind, message, -1);
    }

    public static DecodeProblem of(Kind kind, String message, int templateId) {
        return new DecodeProblem(kind, message, templateId);
    }
}
