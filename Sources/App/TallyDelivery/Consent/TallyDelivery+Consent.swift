extension TallyDelivery {
    /// The user's consent in force: what ``setConsent(_:)`` last recorded in this outbox directory
    /// (by this process or another sharing it), else ``DeliveryConfiguration/defaultConsent``.
    public var consent: ConsentState { consentStore.refresh() }

    /// Records the user's choice in the outbox directory (`consent.json`, kept across launches)
    /// and applies it at once:
    ///
    /// - ``ConsentState/granted``: uploads resume, starting with everything held while pending;
    /// - ``ConsentState/pending``: events are still written to the outbox (its caps apply) but the
    ///   uploader sends nothing;
    /// - ``ConsentState/denied``: events tracked from now on are discarded before they reach the
    ///   disk (counted in ``DeliveryStatistics/discardedNoConsent``), and everything waiting in the
    ///   outbox is deleted (counted as purged; no report of earlier losses is sent).
    ///
    /// Events still in memory when the user opts out are discarded by the next batch write, never
    /// written. Works before ``run()`` starts too.
    /// - Throws: ``DeliveryError`` when `consent.json` cannot be written: the consent in force is then
    ///   unchanged (and the app can tell the user).
    public func setConsent(_ state: ConsentState) async throws(DeliveryError) {
        try consentStore.set(state)
        switch state {
        case .granted: uploader.nudge()
        case .pending: break
        case .denied: await store.run { $0.purge() }
        }
    }
}
