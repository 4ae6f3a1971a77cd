extension Duration {
    /// Milliseconds to one decimal, as request logs show them.
    var loggedMilliseconds: Double {
        let milliseconds = Double(self.components.seconds) * 1000 + Double(self.components.attoseconds) / 1e15
        return (milliseconds * 10).rounded() / 10
    }
}
